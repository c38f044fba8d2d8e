package engine_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/config"
	"github.com/clinevo/clinevo/engine"
)

// closedAddress is a loopback address where nothing listens.
func closedAddress(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// TestDialSaysWhereTheAddressCameFrom: a frontend that does not answer is
// an error naming its address and where it came from: the DevFile of a
// `clinevo dev` that may have stopped, or the configuration, with what
// points elsewhere.
func TestDialSaysWhereTheAddressCameFrom(t *testing.T) {
	addr := closedAddress(t)
	for _, tc := range []struct {
		source, want string
	}{
		{"", "connect to Temporal at " + addr + ": "},
		{"/data/dev.json", "connect to Temporal at " + addr + " (from /data/dev.json, written by `clinevo dev`: is it still running? --address overrides): "},
	} {
		t.Run(tc.want, func(t *testing.T) {
			cfg := config.TemporalConfig{Address: addr, Namespace: "default", Source: tc.source}
			opts, err := engine.ClientOptionsWith(cfg, slog.New(slog.DiscardHandler), false)
			require.NoError(t, err)
			_, err = engine.Dial(cfg, opts)
			require.ErrorContains(t, err, tc.want)
			if tc.source == "" {
				require.ErrorContains(t, err, "(is `clinevo dev` running? --address, CLINEVO_TEMPORAL_ADDRESS or temporal.address point elsewhere)")
			}
		})
	}
}

// TestClientOptionsWith: the process's clients log through its logger and
// carry the tracing interceptors only when traced.
func TestClientOptionsWith(t *testing.T) {
	cfg := config.TemporalConfig{Address: "127.0.0.1:7233", Namespace: "ns"}
	var log bytes.Buffer
	opts, err := engine.ClientOptionsWith(cfg, slog.New(slog.NewTextHandler(&log, nil)), false)
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:7233", opts.HostPort)
	require.Equal(t, "ns", opts.Namespace)
	require.Empty(t, opts.Interceptors)
	opts.Logger.Info("stream started", "run", "r1")
	require.Contains(t, log.String(), `level=INFO msg="stream started" run=r1`)

	traced, err := engine.ClientOptionsWith(cfg, slog.New(slog.DiscardHandler), true)
	require.NoError(t, err)
	require.Len(t, traced.Interceptors, 1)
	require.NotNil(t, traced.MetricsHandler)

	_, err = engine.ClientOptionsWith(config.TemporalConfig{APIKeyEnv: "CLINEVO_TEST_NO_SUCH_KEY"}, slog.New(slog.DiscardHandler), false)
	require.ErrorContains(t, err, "CLINEVO_TEST_NO_SUCH_KEY")
}

// TestDialPatiently: a frontend that comes up within the patience is
// waited for, the first failure noted once; one that does not is the last
// failure; an ended context ends the wait.
func TestDialPatiently(t *testing.T) {
	down := errors.New("connection refused")
	failing := func(n int) (func() (client.Client, error), *int) {
		calls := 0
		return func() (client.Client, error) {
			calls++
			if calls <= n {
				return nil, down
			}
			return nil, nil // up: a test needs no real client
		}, &calls
	}
	ctx := context.Background()
	var note strings.Builder
	dial, calls := failing(3)
	_, err := engine.DialPatiently(ctx, dial, &note, time.Minute, time.Millisecond)
	require.NoError(t, err)
	require.Equal(t, 4, *calls, "three failures, then the frontend answers")
	require.Equal(t, "waiting for the Temporal frontend: connection refused\n", note.String(), "noted once")

	dial, _ = failing(1 << 30)
	_, err = engine.DialPatiently(ctx, dial, &note, 20*time.Millisecond, time.Millisecond)
	require.ErrorIs(t, err, down, "the patience ran out")

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	dial, calls = failing(1 << 30)
	_, err = engine.DialPatiently(cancelled, dial, &note, time.Minute, time.Hour)
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, 1, *calls)
}

// TestEmbedded: the embedded server is dialled in plaintext on its own
// address, in the configured namespace and task queue, whatever TLS and key
// the configuration gives a remote cluster.
func TestEmbedded(t *testing.T) {
	remote := config.TemporalConfig{Address: "temporal.example:7233", Namespace: "lab", TaskQueue: "q", APIKeyEnv: "KEY",
		TLS: config.TemporalTLS{CAFile: "/ca.pem"}, Source: "/data/dev.json"}
	require.Equal(t, config.TemporalConfig{Address: "127.0.0.1:7500", Namespace: "lab", TaskQueue: "q"}, engine.Embedded("127.0.0.1:7500", remote))
}
