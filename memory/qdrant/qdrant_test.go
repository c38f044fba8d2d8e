package qdrant_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/fault"
	"github.com/clinevo/clinevo/internal/tcpproxy"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/memorytest"
	"github.com/clinevo/clinevo/memory/qdrant"
	"github.com/clinevo/clinevo/memory/qdrant/qdranttest"
)

var n int

func fresh(cfg qdrant.Config) memorytest.Open {
	return func(t *testing.T) memory.Store {
		n++
		cfg.Collection = fmt.Sprintf("conformance_%d_%d", os.Getpid(), n)
		s, err := qdrant.Open(context.Background(), cfg, memory.HashEmbedder{}, true)
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		return s
	}
}

// TestConformance runs the memory suite against the in-process Qdrant.
func TestConformance(t *testing.T) {
	srv := qdranttest.Start(t)
	memorytest.Run(t, fresh(qdrant.Config{Host: srv.Host, Port: srv.Port}))
}

// TestConformanceRealQdrant runs the same suite against a real Qdrant when
// QDRANT_URL is set (for example QDRANT_URL=http://127.0.0.1:6334; the port is
// the gRPC one; QDRANT_API_KEY is used when set).
func TestConformanceRealQdrant(t *testing.T) {
	raw := os.Getenv("QDRANT_URL")
	if raw == "" {
		t.Skip("QDRANT_URL is not set; the in-process server covers the suite")
	}
	u, err := url.Parse(raw)
	require.NoError(t, err)
	port, _ := strconv.Atoi(u.Port())
	memorytest.Run(t, fresh(qdrant.Config{Host: u.Hostname(), Port: port, UseTLS: u.Scheme == "https", APIKey: os.Getenv("QDRANT_API_KEY")}))
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	srv := qdranttest.Start(t)
	cfg := qdrant.Config{Host: srv.Host, Port: srv.Port, Collection: "bank"}

	_, err := qdrant.Open(ctx, cfg, memory.HashEmbedder{}, false)
	require.ErrorContains(t, err, `collection "bank" does not exist`)

	s, err := qdrant.Open(ctx, cfg, memory.HashEmbedder{}, true)
	require.NoError(t, err)
	require.NoError(t, s.Upsert(ctx, []clinic.Card{memorytest.Card(memorytest.ID(1), 1, "cough")}))
	s.Close()
	_, err = qdrant.Open(ctx, cfg, memory.HashEmbedder{D: 64}, true)
	require.ErrorContains(t, err, "dimension mismatch: collection \"bank\" holds 512-dimensional vectors, the embedder makes 64")

	// Nothing listens on this port: a clear error, nothing written.
	_, err = qdrant.Open(ctx, qdrant.Config{Host: "127.0.0.1", Port: 1, Collection: "bank"}, memory.HashEmbedder{}, true)
	require.ErrorContains(t, err, "127.0.0.1:1")
	require.ErrorContains(t, err, "unreachable")
}

func TestPurgeRun(t *testing.T) {
	ctx := context.Background()
	srv := qdranttest.Start(t)
	s, err := qdrant.Open(ctx, qdrant.Config{Host: srv.Host, Port: srv.Port}, memory.HashEmbedder{}, true)
	require.NoError(t, err)
	defer s.Close()
	a, b := memorytest.Card(memorytest.ID(1), 1, "x"), memorytest.Card(memorytest.ID(2), 1, "y")
	b.Run = "other"
	require.NoError(t, s.Upsert(ctx, []clinic.Card{a, b}))
	require.NoError(t, s.Purge(ctx, "r1"))
	left, err := s.List(ctx, memory.Filter{IncludeEvicted: true})
	require.NoError(t, err)
	require.Len(t, left, 1)
	require.Equal(t, "other", left[0].Run)
}

// TestWorkersCreateTogether opens one bank from many workers at once, and
// once with another worker creating the collection between this one's check
// and its create: every open succeeds on the one collection.
func TestWorkersCreateTogether(t *testing.T) {
	ctx := context.Background()
	srv := qdranttest.Start(t)
	cfg := qdrant.Config{Host: srv.Host, Port: srv.Port, Collection: "raced"}
	var interposed atomic.Bool
	var otherErr error // the hook runs on the server's goroutine: checked below
	srv.BeforeCreate = func(string) {
		if interposed.CompareAndSwap(false, true) {
			other, err := qdrant.Open(ctx, cfg, memory.HashEmbedder{}, true)
			if err == nil {
				err = other.Close()
			}
			otherErr = err
		}
	}
	s, err := qdrant.Open(ctx, cfg, memory.HashEmbedder{}, true)
	require.NoError(t, err, "the loser of the race uses the winner's collection")
	require.True(t, interposed.Load())
	require.NoError(t, otherErr, "the winner of the race")
	require.NoError(t, s.Close())

	srv.BeforeCreate = nil
	cfg.Collection = "together"
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			s, err := qdrant.Open(ctx, cfg, memory.HashEmbedder{}, true)
			if err == nil {
				err = s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "worker %d", i)
	}
}

// TestFailuresAreClassified: with the server gone (a proxy in front of it,
// taken down) a query fails as memory/qdrant unavailable, to be waited out;
// with it back, the same store answers again.
func TestFailuresAreClassified(t *testing.T) {
	srv := qdranttest.Start(t)
	p := tcpproxy.Start(t, net.JoinHostPort(srv.Host, strconv.Itoa(srv.Port)))
	ctx := context.Background()
	s, err := qdrant.Open(ctx, qdrant.Config{Host: "127.0.0.1", Port: p.Port(), Collection: "faults"}, memory.HashEmbedder{}, true)
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Upsert(ctx, []clinic.Card{memorytest.Card(memorytest.ID(1), 1, "chest pain")}))
	p.Down()
	_, err = s.Search(ctx, memory.Query{Text: "chest pain", K: 1})
	f := fault.Of(err)
	require.Equal(t, fault.Unavailable, f.Class, "%v", err)
	require.Equal(t, qdrant.Dependency, f.Dependency)
	require.NoError(t, p.Up())
	// gRPC reconnects after its own backoff: poll until the store answers.
	var hits []memory.Hit
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if hits, err = s.Search(ctx, memory.Query{Text: "chest pain", K: 1}); err == nil || time.Now().After(deadline) {
			break
		}
	}
	require.NoError(t, err)
	require.Len(t, hits, 1)

	_, err = s.Get(ctx, memorytest.ID(99))
	require.ErrorIs(t, err, memory.ErrNotFound)
	var fe *fault.Error
	require.False(t, errors.As(err, &fe), "a missing card is not a fault")
}
