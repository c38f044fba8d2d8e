package view

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestServe: Serve answers until its context ends, then returns nil; a
// listener that fails is the error.
func TestServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "up") }))
	}()
	resp, err := http.Get("http://" + ln.Addr().String() + "/")
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, "up", string(b))
	cancel()
	require.NoError(t, <-done)

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed.Close()
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	require.ErrorContains(t, Serve(ctx, closed, http.NotFoundHandler()), "view: ")
}
