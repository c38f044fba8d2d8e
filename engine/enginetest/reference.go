package enginetest

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/local"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

// Reference plays a stream spec with the in-process loop: what a Temporal run
// must reproduce exactly, crashes or not. It returns the traces and card IDs.
func Reference(t testing.TB, spec contract.StreamSpec) ([]clinic.Trace, []string) {
	traces, cards, _ := ReferenceWithEvals(t, spec)
	return traces, cards
}

// ReferenceWithEvals, as Reference, plays the spec's stage evaluations and final
// retention replay, keyed by evaluation run ID, in case order.
func ReferenceWithEvals(t testing.TB, spec contract.StreamSpec) ([]clinic.Trace, []string, map[string][]clinic.Trace) {
	t.Helper()
	set, err := engine.Benchmarks()
	require.NoError(t, err)
	ctx := context.Background()
	spec = spec.WithDefaults()
	b, err := set.Of(spec.Settings)
	require.NoError(t, err)
	cp, err := corpus.NewLibrary(set).Load(spec.Corpus)
	require.NoError(t, err)
	st, err := local.Open(ctx, filepath.Join(t.TempDir(), "ref.db"), memory.HashEmbedder{})
	require.NoError(t, err)
	defer st.Close()
	d := runner.Deps{Bench: b, Roles: runner.BuiltinRoles(), Settings: spec.Settings, Memory: st}
	var rules []clinic.Rule
	var traces []clinic.Trace
	evals := map[string][]clinic.Trace{}
	var snapshots [][]clinic.Rule
	evaluate := func(id string, k, j int, kind contract.Kind) {
		for i, c := range cp.Cases[(j-1)*spec.StageSize : min(j*spec.StageSize, spec.Limit)] {
			index := (j-1)*spec.StageSize + i + 1
			m := runner.Meta{RunID: id, EpisodeID: contract.EpisodeWorkflowID(id, spec.Pass, j, index, c.ID), Number: k*spec.StageSize + 1,
				Pass: spec.Pass, Stage: j, MemoryRuns: spec.MemoryRuns(), AsOf: min(k*spec.StageSize, spec.Limit), Frozen: true}
			if spec.Settings.Evolver.Rules() {
				m.Rules = runner.RuleTexts(snapshots[k-1])
			}
			tr, err := runner.Play(ctx, c, d, m)
			require.NoError(t, err)
			evals[id] = append(evals[id], tr)
		}
	}
	for i, c := range cp.Cases[:spec.Limit] {
		stage := i/spec.StageSize + 1
		m := runner.Meta{RunID: spec.RunID, EpisodeID: contract.EpisodeWorkflowID(spec.RunID, spec.Pass, stage, i+1, c.ID),
			Number: i + 1, Pass: spec.Pass, Stage: stage, MemoryRuns: spec.MemoryRuns()}
		if spec.Settings.Evolver.Rules() {
			m.Rules = runner.RuleTexts(rules)
		}
		tr, err := runner.Play(ctx, c, d, m)
		require.NoError(t, err)
		l, err := runner.Learn(ctx, d, c, tr, m, rules)
		require.NoError(t, err)
		rules = l.Rules
		traces = append(traces, tr)
		if (i+1)%spec.StageSize == 0 || i+1 == spec.Limit {
			snapshots = append(snapshots, append([]clinic.Rule(nil), rules...))
			if spec.StageEval {
				evaluate(contract.StageEvalRunID(spec.RunID, stage), stage, stage, contract.KindStageEval)
			}
		}
	}
	if K := len(snapshots); spec.Retention == "final" {
		for j := 1; j < K; j++ {
			evaluate(contract.ReplayRunID(spec.RunID, K, j), K, j, contract.KindReplay)
		}
	}
	cards, err := st.List(ctx, memory.Filter{IncludeEvicted: true})
	require.NoError(t, err)
	var ids []string
	for _, c := range cards {
		ids = append(ids, c.ID)
	}
	return traces, ids, evals
}

// RequireEvaluationsAsReference compares every evaluation run of a finished
// Temporal stream with the in-process evaluations, episode by episode.
func RequireEvaluationsAsReference(t testing.TB, res results.Store, evals map[string][]clinic.Trace) {
	t.Helper()
	ctx := context.Background()
	require.NotEmpty(t, evals)
	for id, want := range evals {
		recs, err := res.Records(ctx, id)
		require.NoError(t, err)
		require.Len(t, recs, len(want), "evaluation %s", id)
		for i, r := range recs {
			_, got, err := res.RecordTrace(ctx, r.EpisodeID)
			require.NoError(t, err)
			gb, _ := json.Marshal(got.Events)
			wb, _ := json.Marshal(want[i].Events)
			require.JSONEq(t, string(wb), string(gb), "%s episode %d", id, i+1)
			require.Equal(t, *want[i].Scores, *got.Scores, "%s episode %d", id, i+1)
		}
	}
}

// RequireSameAsReference compares a finished Temporal run with the reference:
// every episode recorded once, with identical events and scores, and the same cards.
func RequireSameAsReference(t testing.TB, res results.Store, mem memory.Store, spec contract.StreamSpec) {
	t.Helper()
	ctx := context.Background()
	want, wantCards := Reference(t, spec)
	recs, err := res.Records(ctx, spec.RunID)
	require.NoError(t, err)
	require.Len(t, recs, len(want), "every episode recorded exactly once")
	for i, r := range recs {
		require.Equal(t, want[i].EpisodeID, r.EpisodeID)
		_, got, err := res.RecordTrace(ctx, r.EpisodeID)
		require.NoError(t, err)
		gb, _ := json.Marshal(got.Events)
		wb, _ := json.Marshal(want[i].Events)
		require.JSONEq(t, string(wb), string(gb), "events of episode %d (%s)", i+1, r.EpisodeID)
		require.Equal(t, *want[i].Scores, *got.Scores, "scores of episode %d", i+1)
		require.Equal(t, want[i].Final, got.Final)
	}
	cards, err := mem.List(ctx, memory.Filter{Runs: []string{spec.RunID}, IncludeEvicted: true})
	require.NoError(t, err)
	var got []string
	seen := map[string]bool{}
	for _, c := range cards {
		require.False(t, seen[c.ID], "duplicate card %s", c.ID)
		seen[c.ID] = true
		got = append(got, c.ID)
	}
	require.ElementsMatch(t, wantCards, got)
}

// ModelSettings are the default settings with the named roles on the fake
// endpoint, each model named fake-<role>.
func ModelSettings(srv *llmtest.Server, keyEnv string, names ...string) settings.Settings {
	s := settings.Default()
	for _, n := range names {
		s.Roles[n] = settings.Role{Backend: settings.OpenAI, BaseURL: srv.BaseURL(), Model: "fake-" + n, JSONMode: true, Format: "json",
			Timeout: settings.Duration(5 * time.Second), Concurrency: 4, APIKeyEnv: keyEnv, PricePrompt: 0.5, PriceCompletion: 1.5}
	}
	return s
}

// Tweak returns the default settings changed by f.
func Tweak(f func(*settings.Settings)) settings.Settings {
	s := settings.Default()
	f(&s)
	return s
}
