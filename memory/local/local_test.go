package local_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/fault"
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
	return clinic.Card{CardHint: clinic.CardHint{ID: id, Kind: clinic.CardSuccess, Text: text}, SearchText: text,
		Bank: "success", Run: "r1", Pass: 1, Stage: 1, CreatedEpisode: created}
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
	require.Equal(t, fault.Schema, fault.Of(err).Class, "a mismatch is not waited out")
	require.ErrorContains(t, err, "start the worker with the embedder the bank was built with")
}

// TestReaderWritesNothing: a reader reads a bank another store writes, and
// its writes fail as a permanent fault of memory/local naming the file.
func TestReaderWritesNothing(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	w := open(t, path)
	require.NoError(t, w.Upsert(ctx, []clinic.Card{card("x", 1, "itchy rash on the arms")}))
	r, err := local.OpenReader(ctx, path, memory.HashEmbedder{})
	require.NoError(t, err)
	defer r.Close()
	hits, err := r.Search(ctx, memory.Query{Text: "rash", K: 5})
	require.NoError(t, err)
	require.Len(t, hits, 1)
	err = r.Upsert(ctx, []clinic.Card{card("y", 2, "fever")})
	f := fault.Of(err)
	require.Equal(t, fault.Invalid, f.Class, "%v", err)
	require.Equal(t, local.Dependency, f.Dependency)
	require.ErrorContains(t, err, path)
	_, err = r.Get(ctx, "y")
	require.ErrorIs(t, err, memory.ErrNotFound, "nothing was written")
}

// TestDirectoryNamesAURIWouldCut: banks in directories named "bank#1" and
// "bank?x" are two files at those paths, each with only its own cards (a
// cut URI would open one "bank" file beside them for both).
func TestDirectoryNamesAURIWouldCut(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	names := []string{"bank#1", "bank?x"}
	for _, name := range names {
		require.NoError(t, os.Mkdir(filepath.Join(root, name), 0o755))
		s := open(t, filepath.Join(root, name, "m.db"))
		require.NoError(t, s.Upsert(ctx, []clinic.Card{card(name, 1, "itchy rash on the arms")}))
	}
	for _, name := range names {
		path := filepath.Join(root, name, "m.db")
		_, err := os.Stat(path)
		require.NoError(t, err)
		r, err := local.OpenReader(ctx, path, memory.HashEmbedder{})
		require.NoError(t, err)
		hits, err := r.Search(ctx, memory.Query{Text: "rash", K: 5})
		require.NoError(t, err)
		require.Len(t, hits, 1, "%s holds its own card only", name)
		require.Equal(t, name, hits[0].Card.ID)
		require.NoError(t, r.Close())
	}
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	require.ElementsMatch(t, names, got, "no file was opened beside the directories")
}

// TestSearchedCardsStayTheFiles: the cards a search returns from the store's
// copy of earlier hits equal the file's (Get reads the file) after every kind
// of write: retrievals counted once per episode, an eviction kept at its
// first episode, a rewrite, another process's count; and a caller changing a
// hit changes nothing the next search returns.
func TestSearchedCardsStayTheFiles(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	st, other := open(t, path), open(t, path)
	c := card("x", 1, "itchy rash on the arms")
	c.Ask = []string{"fever"}
	require.NoError(t, st.Upsert(ctx, []clinic.Card{c}))
	search := func() clinic.Card {
		t.Helper()
		hits, err := st.Search(ctx, memory.Query{Text: "rash", K: 5, Filter: memory.Filter{IncludeEvicted: true}})
		require.NoError(t, err)
		require.Len(t, hits, 1)
		return hits[0].Card
	}
	search() // the store now holds x from this search
	for _, step := range []struct {
		name             string
		write            func() error
		retrievals, last int
		evicted          int
		text             string
	}{
		{"retrieved at 5", func() error { return st.MarkRetrieved(ctx, []string{"x"}, 5) }, 1, 5, 0, c.Text},
		{"retrieved at 5 again: counted once", func() error { return st.MarkRetrieved(ctx, []string{"x"}, 5) }, 1, 5, 0, c.Text},
		{"retrieved at 6", func() error { return st.MarkRetrieved(ctx, []string{"x"}, 6) }, 2, 6, 0, c.Text},
		{"evicted at 7", func() error { return st.Evict(ctx, []string{"x"}, 7) }, 2, 6, 7, c.Text},
		{"evicted at 8: stays 7", func() error { return st.Evict(ctx, []string{"x"}, 8) }, 2, 6, 7, c.Text},
		{"rewritten: counters and eviction kept", func() error {
			r := c
			r.Text = "itchy rash on the legs"
			return st.Upsert(ctx, []clinic.Card{r})
		}, 2, 6, 7, "itchy rash on the legs"},
		{"retrieved at 9 by another process", func() error { return other.MarkRetrieved(ctx, []string{"x"}, 9) }, 3, 9, 7, "itchy rash on the legs"},
	} {
		t.Run(step.name, func(t *testing.T) {
			require.NoError(t, step.write())
			got := search()
			file, err := st.Get(ctx, "x")
			require.NoError(t, err)
			require.Equal(t, file, got)
			require.Equal(t, []int{step.retrievals, step.last, step.evicted}, []int{got.Retrievals, got.LastRetrieved, got.EvictedEpisode})
			require.Equal(t, step.text, got.Text)
			got.Ask[0] = "changed by the caller"
			require.Equal(t, []string{"fever"}, search().Ask)
		})
	}
}

// TestBankFromBeforeUtilities opens a file whose cards table has no utility
// column (a bank written before utilities): a reader reads every card with
// no history, and a writer adds the column and credits the card.
func TestBankFromBeforeUtilities(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	s, err := local.Open(ctx, path, memory.HashEmbedder{})
	require.NoError(t, err)
	require.NoError(t, s.Upsert(ctx, []clinic.Card{card("00000000-0000-4000-8000-000000000001", 1, "wheeze at night")}))
	require.NoError(t, s.Close())
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, `ALTER TABLE cards DROP COLUMN utility`)
	require.NoError(t, err)
	require.NoError(t, db.Close())

	r, err := local.OpenReader(ctx, path, memory.HashEmbedder{})
	require.NoError(t, err)
	got, err := r.List(ctx, memory.Filter{})
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Empty(t, got[0].Utility)
	require.NoError(t, r.Close())

	w := open(t, path)
	cr := memory.Credit{Card: got[0].ID, Utility: clinic.Utility{Episode: 2, Q: 0.65, Reward: 1}}
	require.NoError(t, w.Credit(ctx, []memory.Credit{cr}))
	c, err := w.Get(ctx, got[0].ID)
	require.NoError(t, err)
	require.Equal(t, []clinic.Utility{cr.Utility}, c.Utility)
}
