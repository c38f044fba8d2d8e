// Package tcpproxy is a loopback TCP proxy for tests that take a dependency
// away (a database, a model endpoint, a Qdrant server) for one client only:
// Down closes the listener and every connection through it, so the client's
// connections break and new ones are refused, as when the server is gone;
// Up listens again on the same port. Other clients of the server, and the
// server itself, are untouched.
package tcpproxy

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Proxy forwards connections on a loopback port to a target address.
type Proxy struct {
	target string
	addr   string
	mu     sync.Mutex
	l      net.Listener
	down   bool
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
}

// Start listens on a free loopback port and forwards to target until the test
// ends.
func Start(t testing.TB, target string) *Proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{target: target, addr: l.Addr().String(), conns: map[net.Conn]struct{}{}}
	p.serve(l)
	t.Cleanup(func() {
		p.Down()
		p.wg.Wait()
	})
	return p
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.addr }

// Port is the proxy's port.
func (p *Proxy) Port() int {
	_, port, _ := net.SplitHostPort(p.addr) // the listener's own address: it splits
	n, _ := strconv.Atoi(port)
	return n
}

// Down closes the listener and every open connection. It is safe to call
// when the proxy is down already.
func (p *Proxy) Down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	p.l.Close()
	for c := range p.conns {
		c.Close()
	}
}

// Up listens on the proxy's port again. The port was free while the proxy
// was down, so another process may have taken it meanwhile: Up tries for up
// to ten seconds.
func (p *Proxy) Up() error {
	var l net.Listener
	var err error
	for deadline := time.Now().Add(10 * time.Second); ; {
		if l, err = net.Listen("tcp", p.addr); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond) // polling for the port, not timing a test
	}
	if err != nil {
		return fmt.Errorf("tcpproxy: listen on %s again: %w", p.addr, err)
	}
	p.serve(l)
	return nil
}

func (p *Proxy) serve(l net.Listener) {
	p.mu.Lock()
	p.l, p.down = l, false
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return // closed by Down
			}
			p.forward(c)
		}
	}()
}

// forward pipes c to a new connection to the target, both ways.
func (p *Proxy) forward(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.down { // Down came between the accept and the dial
		p.mu.Unlock()
		c.Close()
		up.Close()
		return
	}
	p.conns[c], p.conns[up] = struct{}{}, struct{}{}
	p.mu.Unlock()
	pipe := func(dst, src net.Conn) {
		defer p.wg.Done()
		// The copy ends when either side closes or resets the connection (or
		// Down closes both): how it ended does not matter, both are closed.
		_, _ = io.Copy(dst, src)
		dst.Close()
		src.Close()
		p.mu.Lock()
		delete(p.conns, dst)
		delete(p.conns, src)
		p.mu.Unlock()
	}
	p.wg.Add(2)
	go pipe(up, c)
	go pipe(c, up)
}
