package view

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
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

// TestListenAndServe: the viewer says where it listens and what it serves,
// and with a token how to pass it; an address taken is the error, and
// nothing is said.
func TestListenAndServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // serve nothing: the banner is written before serving
	for _, token := range []bool{false, true} {
		var out strings.Builder
		require.NoError(t, ListenAndServe(ctx, &out, http.NotFoundHandler(), "127.0.0.1:0", "results r.db, Temporal t:7233", token))
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		require.Regexp(t, `^clinevo view on http://127\.0\.0\.1:(\d+)/ \(results r\.db, Temporal t:7233\)$`, lines[0])
		if !token {
			require.Len(t, lines, 1)
			continue
		}
		addr := strings.TrimSuffix(strings.TrimPrefix(strings.Fields(lines[0])[3], "http://"), "/")
		require.Equal(t, []string{lines[0], "every request must carry the token: open http://" + addr +
			"/?token=TOKEN once, or send Authorization: Bearer TOKEN"}, lines)
	}

	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	var out strings.Builder
	require.ErrorContains(t, ListenAndServe(context.Background(), &out, http.NotFoundHandler(), taken.Addr().String(), "", false), "view: listen tcp ")
	require.Empty(t, out.String())
}
