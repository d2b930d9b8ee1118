module go-echo

go 1.19
