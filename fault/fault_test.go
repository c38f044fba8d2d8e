package fault_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/fault"
)

// refusedPort is a loopback port nothing listens on.
func refusedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

func TestOf(t *testing.T) {
	_, refused := net.Dial("tcp", refusedPort(t))
	require.Error(t, refused)
	_, httpRefused := (&http.Client{Timeout: time.Second}).Get("http://" + refusedPort(t))
	require.Error(t, httpRefused)
	tagged := fault.New("results/postgres", fault.Unavailable, errors.New("no connection"))
	for _, tc := range []struct {
		name       string
		err        error
		class      fault.Class
		dependency string
		transient  bool
	}{
		{"a refused dial", refused, fault.Unavailable, "", true},
		{"a refused HTTP request", httpRefused, fault.Unavailable, "", true},
		{"a deadline", fmt.Errorf("query: %w", context.DeadlineExceeded), fault.Timeout, "", true},
		{"a connection closed mid-answer", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), fault.Unavailable, "", true},
		{"a name lookup", &net.DNSError{Err: "no such host", Name: "db.internal"}, fault.Unavailable, "", true},
		{"nothing known", errors.New("boom"), fault.Unknown, "", true},
		{"a tag, wrapped", fmt.Errorf("decide: %w", tagged), fault.Unavailable, "results/postgres", true},
		{"the outermost tag wins", fault.New("model roles.doctor", fault.Unauthorized, fmt.Errorf("x: %w", tagged)), fault.Unauthorized, "model roles.doctor", false},
		{"invalid", fault.Permanent("results/sqlite", fault.Invalid, "make it writable", errors.New("read-only")), fault.Invalid, "results/sqlite", false},
		{"schema", fault.New("memory/local", fault.Schema, errors.New("embedder mismatch")), fault.Schema, "memory/local", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := fault.Of(tc.err)
			require.Equal(t, tc.class, f.Class, "%v", tc.err)
			require.Equal(t, tc.dependency, f.Dependency)
			require.Equal(t, tc.transient, f.Class.Transient())
			require.ErrorIs(t, tc.err, f.Err, "the classified error is in the chain")
		})
	}
	require.Nil(t, fault.Of(nil))
	require.NoError(t, fault.New("x", fault.Unknown, nil))
}

func TestPermanentSaysWhatToFix(t *testing.T) {
	err := fault.Permanent("model roles.doctor", fault.Unauthorized, "set a valid key in $OPENAI_API_KEY", errors.New("HTTP 401: Incorrect API key provided."))
	require.EqualError(t, err, "HTTP 401: Incorrect API key provided.: set a valid key in $OPENAI_API_KEY")
}
