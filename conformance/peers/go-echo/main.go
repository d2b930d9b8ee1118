// Command go-echo serves the conformance suite's echo contract
// (conformance/cases/README.md) with Go's net/http, standard library only:
// a peer that conformance/run-peers.sh runs the live suite against.
//
//	go run ./conformance/peers/go-echo -addr 127.0.0.1:0   # prints "listening on ADDR"
//
// It is written as a user of net/http writes a server: one handler that
// reads the whole body (http.MaxBytesReader, 1 MiB) and answers 200 with it
// and the fields x-echo-method, x-echo-target (r.RequestURI, the target as
// received) and x-echo-version. Exceptions:
//
//   - CONNECT: 501 (not a proxy);
//   - an https absolute-form target: 421 (RFC 9110 §7.4);
//   - a websocket upgrade (HTTP/1.1, Connection: upgrade, Upgrade:
//     websocket): the connection is hijacked, as websocket servers on
//     net/http do, answered 101 and closed; other upgrades are answered as
//     any request;
//   - a body over 1 MiB: 413 (at once when Content-Length says so); a body net/http cannot read (bad chunked
//     framing): 400, the usual http.Error after a failed read.
//
// net/http itself sends 100 Continue when the body of a 100-continue
// request is first read, answers 417 to an Expect that lists no
// 100-continue (the handler answers 417, with a close, to one that lists
// another member too), answers OPTIONS * itself (200, without calling the
// handler), and answers what it refuses to parse. x-echo-version is the
// version net/http serves the request as (HTTP/1.0, or HTTP/1.1 for any
// later 1.x). The head limit of the contract (64 KiB) is set
// as MaxHeaderBytes (to which net/http adds its own 4 KiB of slack).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
)

const maxBody = 1 << 20

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening on %s\n", ln.Addr())
	os.Stdout.Sync()
	srv := &http.Server{
		Handler:        http.HandlerFunc(echo),
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       log.New(os.Stderr, "", log.LstdFlags),
	}
	log.Fatal(srv.Serve(ln))
}

func echo(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Echo-Method", r.Method)
	h.Set("X-Echo-Target", r.RequestURI)
	// The version net/http serves the request as: it takes any HTTP/1.x
	// above 1.1 for 1.1 (RFC 9110 §6.2), and r.Proto is what was sent.
	version := "HTTP/1.1"
	if !r.ProtoAtLeast(1, 1) {
		version = "HTTP/1.0"
	}
	h.Set("X-Echo-Version", version)
	h.Set("Server", "go-echo")

	// net/http answers 417 itself to an Expect it does not know, and takes
	// any value listing 100-continue for 100-continue: the contract wants
	// 417 (and a close) when any other member is listed. The 100 Continue
	// goes out only when the body is read, so this comes first.
	for _, e := range elements(r.Header, "Expect") {
		if !strings.EqualFold(e, "100-continue") {
			h.Set("Connection", "close")
			w.WriteHeader(http.StatusExpectationFailed)
			return
		}
	}

	if r.ContentLength > maxBody {
		// Refused before any of it is read.
		http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "bad request body: "+err.Error(), http.StatusBadRequest)
		}
		return
	}
	switch {
	case r.ProtoAtLeast(1, 1) && lists(r.Header, "Connection", "upgrade") &&
		lists(r.Header, "Upgrade", "websocket"):
		switchToWebsocket(w)
	case r.Method == http.MethodConnect:
		w.WriteHeader(http.StatusNotImplemented)
	case r.URL.Scheme == "https":
		w.WriteHeader(http.StatusMisdirectedRequest)
	default:
		h.Set("Content-Length", fmt.Sprint(len(body)))
		w.WriteHeader(http.StatusOK)
		w.Write(body)
	}
}

// switchToWebsocket takes the connection from net/http, answers 101 and
// closes: this server speaks no websocket.
func switchToWebsocket(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "cannot switch protocols", http.StatusInternalServerError)
		return
	}
	conn, rw, err := hj.Hijack()
	if err != nil {
		log.Print("hijack: ", err)
		return
	}
	defer conn.Close()
	rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nServer: go-echo\r\n\r\n")
	rw.Flush()
}

// elements returns the members of the comma-separated field name (RFC
// 9110 §5.6.1), every line of it, trimmed, empty ones left out.
func elements(h http.Header, name string) []string {
	var out []string
	for _, v := range h.Values(name) {
		for _, e := range strings.Split(v, ",") {
			if e = strings.Trim(e, " \t"); e != "" {
				out = append(out, e)
			}
		}
	}
	return out
}

// lists reports whether the comma-separated field name lists token
// (case-insensitive).
func lists(h http.Header, name, token string) bool {
	for _, e := range elements(h, name) {
		if strings.EqualFold(e, token) {
			return true
		}
	}
	return false
}
