package runner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/medevoeval"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/local"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

func deps(t testing.TB, withMemory bool) runner.Deps {
	d := runner.Deps{Bench: medevoeval.Benchmark{}, Roles: runner.BuiltinRoles(), Settings: settings.Default()}
	if withMemory {
		st, err := local.Open(context.Background(), filepath.Join(t.TempDir(), "memory.db"), memory.HashEmbedder{})
		require.NoError(t, err)
		t.Cleanup(func() { st.Close() })
		d.Memory = st
	}
	return d
}

// stream plays and learns from cases in order and returns their traces.
func stream(t testing.TB, d runner.Deps, cases []clinic.Case, run string) []clinic.Trace {
	out, _, err := runner.PlayStream(context.Background(), d, cases, run)
	require.NoError(t, err)
	return out
}

// TestDoctorImprovesWithCardsOfTheSameCondition plays a case twice: with empty
// memory, and after learning from earlier cases of the same condition (with the
// rest of the stream in between, so retrieval has to find the right cards).
func TestDoctorImprovesWithCardsOfTheSameCondition(t *testing.T) {
	t.Parallel()
	all := synth.Generate(7)["stream"]
	for _, cond := range []string{"stable_angina", "gerd", "migraine", "pyelonephritis", "renal_colic"} {
		t.Run(cond, func(t *testing.T) {
			t.Parallel()
			var earlier []clinic.Case
			var target clinic.Case
			for _, c := range all {
				if c.Meta.Stage <= 2 {
					earlier = append(earlier, c) // two stages: every condition twice
				}
				if c.Meta.Stage == 3 && c.Condition == cond {
					target = c
				}
			}
			ctx := context.Background()
			cold, err := runner.Play(ctx, target, deps(t, false), runner.Meta{RunID: "cold", EpisodeID: "cold", Number: 1})
			require.NoError(t, err)

			d := deps(t, true)
			stream(t, d, earlier, "warm")
			warm, err := runner.Play(ctx, target, d, runner.Meta{RunID: "warm", EpisodeID: "warm", Number: len(earlier) + 1, MemoryRuns: []string{"warm"}})
			require.NoError(t, err)
			require.Greater(t, warm.Scores.S, cold.Scores.S, "cold:\n%s\nwarm:\n%s", runner.Format(cold, nil), runner.Format(warm, nil))
			require.NotEmpty(t, warm.Events[0].RetrievedCards)
		})
	}
}

func TestDoctorDoesNotReadTheAnswerKey(t *testing.T) {
	t.Parallel()
	// Two cases identical but for the answer key must give identical traces.
	c := synth.Generate(7)["stream"][0]
	other := c
	other.Manager = clinic.ManagerView{Diagnosis: clinic.Diagnosis{Name: "Something else entirely"}}
	ctx := context.Background()
	a, err := runner.Play(ctx, c, deps(t, false), runner.Meta{RunID: "r", EpisodeID: "e", Number: 1})
	require.NoError(t, err)
	b, err := runner.Play(ctx, other, deps(t, false), runner.Meta{RunID: "r", EpisodeID: "e", Number: 1})
	require.NoError(t, err)
	require.Equal(t, a.Events, b.Events)
	require.Equal(t, a.Final, b.Final)
}

// TestAtMostKCardsReachTheDoctor checks MedEvoEval's top-K retrieval (§3.4):
// the two retrieval queries are merged into at most K cards per turn, each
// once, best first.
func TestAtMostKCardsReachTheDoctor(t *testing.T) {
	t.Parallel()
	cases := synth.Generate(7)["stream"][:60]
	for _, k := range []int{1, 3, 5} {
		t.Run(fmt.Sprint("K=", k), func(t *testing.T) {
			t.Parallel()
			d := deps(t, true)
			d.Settings.Memory.K = k
			traces := stream(t, d, cases, fmt.Sprint("k", k))
			most := 0
			for _, tr := range traces {
				for _, ev := range tr.Events {
					require.LessOrEqual(t, len(ev.RetrievedCards), k, "episode %s turn %d", tr.EpisodeID, ev.Turn)
					seen := map[string]bool{}
					for _, id := range ev.RetrievedCards {
						require.False(t, seen[id], "card %s shown twice in one turn", id)
						seen[id] = true
					}
					most = max(most, len(ev.RetrievedCards))
				}
			}
			require.Equal(t, k, most, "some turn fills all K places")
		})
	}
}

// TestTracesAreByteIdentical runs the same stream twice from empty memory.
func TestTracesAreByteIdentical(t *testing.T) {
	t.Parallel()
	cases := synth.Generate(7)["stream"][:60]
	dir := t.TempDir()
	write := func(name string) []byte {
		traces := stream(t, deps(t, true), cases, "det")
		p := filepath.Join(dir, name)
		require.NoError(t, runner.WriteTraces(p, traces))
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		return b
	}
	a, b := write("a.jsonl"), write("b.jsonl")
	require.Equal(t, a, b)
	require.Contains(t, string(a), `"schema_version":1`)
}

func BenchmarkEpisode(b *testing.B) {
	cases := synth.Generate(7)["stream"]
	ctx := context.Background()
	b.Run("empty-memory", func(b *testing.B) {
		d := deps(b, false)
		for i := 0; b.Loop(); i++ {
			c := cases[i%len(cases)]
			if _, err := runner.Play(ctx, c, d, runner.Meta{RunID: "bench", EpisodeID: "e", Number: 1}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "episodes/s")
	})
	b.Run("with-300-cards", func(b *testing.B) {
		d := deps(b, true)
		stream(b, d, cases[:300], "bench")
		for i := 0; b.Loop(); i++ {
			c := cases[300+i%200]
			if _, err := runner.Play(ctx, c, d, runner.Meta{RunID: "bench", EpisodeID: "e", Number: 301, MemoryRuns: []string{"bench"}, Frozen: true}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "episodes/s")
	})
}

// TestFormatUndefinedUtility: a benchmark that declares no U prints "–", not
// the 0 its record holds, and so does a benchmark this build does not have
// (nil: bench.ShowsU); one that declares U prints the number.
func TestFormatUndefinedUtility(t *testing.T) {
	tr := clinic.Trace{EpisodeID: "e", CaseID: "c", Scores: &clinic.Scores{S: 1, U: 0}}
	require.Contains(t, runner.Format(tr, benchtest.Fake{N: "a", M: []bench.Metric{{Name: "s"}}}), " U=– ")
	require.Contains(t, runner.Format(tr, benchtest.Fake{N: "b", M: []bench.Metric{{Name: "s"}, {Name: "u"}}}), " U=0.000 ")
	require.Contains(t, runner.Format(tr, nil), " U=– ")
}

// TestContextTokensBoundTheShownCards: with memory.context_tokens the newest
// cards are shown while their texts fit: four cards of 40 characters (10
// tokens at four characters a token) under a budget of 25 tokens leave the
// two newest (10 + 10 = 20; a third would make 30).
func TestContextTokensBoundTheShownCards(t *testing.T) {
	ctx := context.Background()
	d := deps(t, true)
	var cards []clinic.Card
	for n := 1; n <= 4; n++ {
		c := clinic.Card{Run: "r", Pass: 1, CreatedEpisode: n, Bank: "example", SearchText: "cough"}
		c.ID, c.Kind, c.Text = fmt.Sprintf("c%d", n), clinic.CardExample, fmt.Sprintf("%-40s", fmt.Sprint("example ", n))
		cards = append(cards, c)
	}
	require.NoError(t, d.Memory.Upsert(ctx, cards))
	view := clinic.DoctorView{OpeningComplaint: "cough"}
	m := runner.Meta{RunID: "r", Number: 5, MemoryRuns: []string{"r"}, Frozen: true}
	for _, c := range []struct {
		retrieval string
		budget    int
		want      []string
	}{{"recent", 25, []string{"c4", "c3"}}, {"recent", 0, []string{"c4", "c3", "c2", "c1"}}, {"recent", 9, nil}, {"similarity", 10, []string{"c1"}}} {
		got, err := runner.Retrieve(ctx, d.Memory, view, settings.Memory{K: 10, Retrieval: c.retrieval, ContextTokens: c.budget}, m)
		require.NoError(t, err)
		var ids []string
		for _, h := range got {
			ids = append(ids, h.ID)
		}
		require.Equal(t, c.want, ids, "%s within %d tokens", c.retrieval, c.budget)
	}
}
