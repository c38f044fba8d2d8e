package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/medevoeval"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/local"
	"github.com/clinevo/clinevo/memory/qdrant"
	"github.com/clinevo/clinevo/memory/qdrant/qdranttest"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

// learnBank plays cases in process and leaves their bank in dir/memory.db.
func learnBank(t *testing.T, dir string, n int) {
	ctx := context.Background()
	st, err := local.Open(ctx, filepath.Join(dir, "memory.db"), memory.HashEmbedder{})
	require.NoError(t, err)
	defer st.Close()
	d := runner.Deps{Bench: medevoeval.Benchmark{}, Roles: runner.BuiltinRoles(), Settings: settings.Default(), Memory: st}
	d.Settings.Evolver.MemoryBudget = 40 // small, so that some cards are evicted
	var rules []clinic.Rule
	for i, c := range synth.Generate(7)["stream"][:n] {
		m := runner.Meta{RunID: "bank", EpisodeID: fmt.Sprint(i), Number: i + 1, Pass: 1, Stage: 1, MemoryRuns: []string{"bank"}, Rules: runner.RuleTexts(rules)}
		tr, err := runner.Play(ctx, c, d, m)
		require.NoError(t, err)
		l, err := runner.Learn(ctx, d, c, tr, m, rules)
		require.NoError(t, err)
		rules = l.Rules
	}
}

// TestExportImportIntoQdrant exports the local bank, imports it into Qdrant,
// and checks that fixed queries return the same top K, IDs and order.
func TestExportImportIntoQdrant(t *testing.T) {
	dir := t.TempDir()
	learnBank(t, dir, 60)
	export := filepath.Join(dir, "bank.jsonl")
	root := func(env map[string]string, args ...string) (string, error) {
		t.Helper()
		for k, v := range env {
			t.Setenv(k, v)
		}
		r := newRoot()
		r.SetArgs(append([]string{"--data-dir", dir}, args...))
		var out bytesBuffer
		r.SetOut(&out)
		r.SetErr(&out)
		err := r.Execute()
		return out.String(), err
	}
	out, err := root(nil, "memory", "export", "--out", export)
	require.NoError(t, err)
	require.Contains(t, out, "cards")

	srv := qdranttest.Start(t)
	qenv := map[string]string{"CLINEVO_MEMORY_QDRANT_HOST": srv.Host, "CLINEVO_MEMORY_QDRANT_PORT": strconv.Itoa(srv.Port)}
	_, err = root(qenv, "memory", "--memory", "qdrant", "stats")
	require.ErrorContains(t, err, "does not exist", "reading a missing collection is an error, not an empty bank")
	out, err = root(qenv, "memory", "--memory-backend", "qdrant", "import", export)
	require.NoError(t, err)
	require.Contains(t, out, "imported")

	ctx := context.Background()
	loc, err := local.Open(ctx, filepath.Join(dir, "memory.db"), memory.HashEmbedder{})
	require.NoError(t, err)
	defer loc.Close()
	qd, err := qdrant.Open(ctx, qdrant.Config{Host: srv.Host, Port: srv.Port, Collection: "clinevo_cards"}, memory.HashEmbedder{}, false)
	require.NoError(t, err)
	defer qd.Close()
	queries := []string{"tight chest when climbing stairs", "burning when passing urine", "itchy rash", "sudden severe headache",
		"tired and always thirsty", "red sticky eye", "pain in the side coming in waves", "low mood"}
	for _, f := range []memory.Filter{{}, {AsOf: 30}, {AsOf: 45, Kinds: []clinic.CardKind{clinic.CardCorrection, clinic.CardRule}}} {
		for _, q := range queries {
			a, err := loc.Search(ctx, memory.Query{Text: q, K: 5, Filter: f})
			require.NoError(t, err)
			b, err := qd.Search(ctx, memory.Query{Text: q, K: 5, Filter: f})
			require.NoError(t, err)
			if len(f.Kinds) == 0 {
				require.NotEmpty(t, a, "query %q with %+v", q, f)
			}
			require.Equal(t, hitIDs(a), hitIDs(b), "query %q with %+v", q, f)
		}
	}
	ls, err := loc.Stats(ctx, memory.Filter{})
	require.NoError(t, err)
	qs, err := qd.Stats(ctx, memory.Filter{})
	require.NoError(t, err)
	require.Equal(t, ls.Live, qs.Live)
	require.Equal(t, ls.Evicted, qs.Evicted)
	require.Positive(t, ls.Evicted, "the bank had evictions to carry over")

	// A bad export line fails before anything is written.
	bad := filepath.Join(dir, "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte(`{"id":"x","kind":"success","run":"r","bank":"success"}`+"\n"+`{"id":"y","kind":"success"}`+"\n"), 0o644))
	_, err = root(qenv, "memory", "--memory-backend", "qdrant", "import", bad)
	require.ErrorContains(t, err, "bad.jsonl:2: field run: required")
	_, err = qd.Get(ctx, "x")
	require.ErrorIs(t, err, memory.ErrNotFound)

	out, err = root(nil, "memory", "diff", "--from", "20", "--to", "40")
	require.NoError(t, err)
	require.Contains(t, out, "+ written")
	require.Contains(t, out, "between episodes 20 and 40")
}

func hitIDs(hs []memory.Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Card.ID
	}
	return out
}

type bytesBuffer struct{ b []byte }

func (w *bytesBuffer) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }
func (w *bytesBuffer) String() string              { return string(w.b) }

// memory query returns the configured doctor's K cards unless --top says
// otherwise.
func TestMemoryQueryTopIsTheConfiguredK(t *testing.T) {
	dir := t.TempDir()
	learnBank(t, dir, 30)
	rows := func(args ...string) int {
		t.Helper()
		r := newRoot()
		var out strings.Builder
		r.SetOut(&out)
		r.SetArgs(append([]string{"--data-dir", dir, "memory", "query", "tight chest when climbing stairs"}, args...))
		require.NoError(t, r.Execute())
		return strings.Count(out.String(), "\n") - 1 // the header
	}
	require.Equal(t, settings.Default().Memory.K, rows())
	require.Equal(t, 3, rows("--top", "3"))
	t.Setenv("CLINEVO_MEMORY_K", "2")
	require.Equal(t, 2, rows())
}
