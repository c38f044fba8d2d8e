package local_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/local"
)

func open(t *testing.T, path string) *local.Store {
	t.Helper()
	s, err := local.Open(context.Background(), path, memory.HashEmbedder{})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

func card(id string, created int, text string) clinic.Card {
	c := clinic.Card{CardHint: clinic.CardHint{ID: id, Kind: clinic.CardSuccess, Text: text}, SearchText: text,
		Bank: "success", Run: "r1", Pass: 1, Stage: 1 + created/5, CreatedEpisode: created}
	return c
}

func ids(cards []clinic.Card) []string {
	out := make([]string, len(cards))
	for i, c := range cards {
		out[i] = c.ID
	}
	sort.Strings(out)
	return out
}

// TestAsOfWithEvictions checks that as-of queries return exactly the cards
// live at an episode: created at or before it and not yet evicted.
func TestAsOfWithEvictions(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "m.db"))
	// Card cN is written after episode N; evictions: c1 at 4, c2 at 6, c5 at 9.
	for n := 1; n <= 10; n++ {
		require.NoError(t, s.Upsert(ctx, []clinic.Card{card(fmt.Sprintf("c%02d", n), n, fmt.Sprintf("chest pain case %d", n))}))
		switch n {
		case 4:
			require.NoError(t, s.Evict(ctx, []string{"c01"}, 4))
		case 6:
			require.NoError(t, s.Evict(ctx, []string{"c02"}, 6))
		case 9:
			require.NoError(t, s.Evict(ctx, []string{"c05"}, 9))
		}
	}
	want := map[int][]string{
		1:  {"c01"},
		3:  {"c01", "c02", "c03"},
		4:  {"c02", "c03", "c04"},
		5:  {"c02", "c03", "c04", "c05"},
		6:  {"c03", "c04", "c05", "c06"},
		8:  {"c03", "c04", "c05", "c06", "c07", "c08"},
		9:  {"c03", "c04", "c06", "c07", "c08", "c09"},
		10: {"c03", "c04", "c06", "c07", "c08", "c09", "c10"},
	}
	for asOf, w := range want {
		got, err := s.List(ctx, memory.Filter{AsOf: asOf})
		require.NoError(t, err)
		require.Equal(t, w, ids(got), "as of %d", asOf)
		hits, err := s.Search(ctx, memory.Query{Text: "chest pain", K: 100, Filter: memory.Filter{AsOf: asOf}})
		require.NoError(t, err)
		var hs []clinic.Card
		for _, h := range hits {
			hs = append(hs, h.Card)
		}
		require.Equal(t, w, ids(hs), "search as of %d", asOf)
	}
	// Now (AsOf 0) is the live set; evicted cards keep their eviction episode.
	live, err := s.List(ctx, memory.Filter{})
	require.NoError(t, err)
	require.Equal(t, want[10], ids(live))
	c5, err := s.Get(ctx, "c05")
	require.NoError(t, err)
	require.Equal(t, 9, c5.EvictedEpisode)
}

func TestWritesAreIdempotent(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "m.db"))
	c := card("a", 1, "sore throat fever")
	require.NoError(t, s.Upsert(ctx, []clinic.Card{c}))
	require.NoError(t, s.Evict(ctx, []string{"a"}, 3))
	require.NoError(t, s.Evict(ctx, []string{"a"}, 5))  // a repeated eviction keeps the first episode
	require.NoError(t, s.Upsert(ctx, []clinic.Card{c})) // a replayed write does not resurrect it
	got, err := s.Get(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, 3, got.EvictedEpisode)

	b := card("b", 1, "sore throat fever")
	require.NoError(t, s.Upsert(ctx, []clinic.Card{b}))
	for range 3 {
		require.NoError(t, s.MarkRetrieved(ctx, []string{"b"}, 2)) // retries of episode 2
	}
	require.NoError(t, s.MarkRetrieved(ctx, []string{"b"}, 3))
	got, err = s.Get(ctx, "b")
	require.NoError(t, err)
	require.Equal(t, 2, got.Retrievals)
	require.NoError(t, s.Upsert(ctx, []clinic.Card{b}))
	got, _ = s.Get(ctx, "b")
	require.Equal(t, 2, got.Retrievals, "a replayed write keeps the retrieval count")
	_, err = s.Get(ctx, "missing")
	require.ErrorIs(t, err, memory.ErrNotFound)
}

func TestOtherProcessWritesAreSeen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	reader, writer := open(t, path), open(t, path)
	hits, err := reader.Search(ctx, memory.Query{Text: "rash", K: 5})
	require.NoError(t, err)
	require.Empty(t, hits)
	require.NoError(t, writer.Upsert(ctx, []clinic.Card{card("x", 1, "itchy rash on the arms")}))
	hits, err = reader.Search(ctx, memory.Query{Text: "rash", K: 5})
	require.NoError(t, err)
	require.Len(t, hits, 1)
}

func TestEmbedderMismatchIsAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	open(t, path)
	_, err := local.Open(context.Background(), path, memory.HashEmbedder{D: 64})
	require.ErrorContains(t, err, "embedder mismatch")
	require.ErrorContains(t, err, "/512")
}
