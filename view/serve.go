package view

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// Serve serves h on ln until ctx ends, then shuts the server down; only a
// failure to serve is an error.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		// Shutdown's error is only the deadline of closing connections, at exit.
		_ = hs.Shutdown(context.Background())
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("view: %w", err)
	}
	return nil
}

// ListenAndServe listens on addr and serves h until ctx ends, having said on
// out where, and what it serves (about: its stores and Temporal); with token,
// it also says how a browser and a client pass the token.
func ListenAndServe(ctx context.Context, out io.Writer, h http.Handler, addr, about string, token bool) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("view: %w", err)
	}
	fmt.Fprintf(out, "clinevo view on http://%s/ (%s)\n", ln.Addr(), about)
	if token {
		fmt.Fprintln(out, "every request must carry the token: open http://"+ln.Addr().String()+"/?token=TOKEN once, or send Authorization: Bearer TOKEN")
	}
	return Serve(ctx, ln, h)
}
