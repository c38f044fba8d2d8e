package activities_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/clinevo/clinevo/activities"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/local"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/sqlite"
	"github.com/clinevo/clinevo/settings"
)

// TestRunEmbedderMustMatchWorker: a stream whose roles.embeddings names
// another backend, model or dimension than the worker's bank is refused before
// any episode, naming the key; one with memory disabled is not checked.
func TestRunEmbedderMustMatchWorker(t *testing.T) {
	mem, err := local.Open(context.Background(), t.TempDir()+"/memory.db", memory.HashEmbedder{})
	require.NoError(t, err)
	t.Cleanup(func() { mem.Close() })
	worker := settings.Role{Backend: settings.OpenAI, Model: "embed-a", Dim: 32, BaseURL: "http://10.0.0.1/v1"}
	res, err := sqlite.Open(context.Background(), t.TempDir()+"/results.db")
	require.NoError(t, err)
	t.Cleanup(func() { res.Close() })
	a := &activities.Activities{Benchmarks: defaultSet(t), Corpora: activities.NewCorpora(corpus.NewLibrary(defaultSet(t))), Results: res, Memory: mem, MemoryBackend: "local", Embeddings: worker}
	tests := []struct {
		name   string
		role   func(*settings.Role)
		memory contract.MemoryMode
		err    string
	}{
		{"same model, another endpoint and key", func(r *settings.Role) { r.BaseURL, r.APIKeyEnv = "http://embed:8000/v1", "EMBED_KEY" }, contract.MemoryEmpty, ""},
		{"another model", func(r *settings.Role) { r.Model = "embed-b" }, contract.MemoryEmpty, `settings roles.embeddings is model "embed-b" with dim 32 but this worker's memory bank embeds with model "embed-a" with dim 32`},
		{"another dimension", func(r *settings.Role) { r.Dim = 64 }, contract.MemoryEmpty, "with dim 64 but"},
		{"the built-in embedder", func(r *settings.Role) { *r = settings.Role{Backend: settings.Builtin} }, contract.MemoryEmpty, "is the built-in hashing embedder but"},
		{"memory disabled", func(r *settings.Role) { r.Model = "embed-b" }, contract.MemoryDisabled, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := settings.Default()
			r := worker
			tc.role(&r)
			s.Roles["embeddings"] = r
			var suite testsuite.WorkflowTestSuite
			env := suite.NewTestActivityEnvironment()
			env.RegisterActivity(a)
			_, err := env.ExecuteActivity(a.ValidateStream, contract.StreamSpec{RunID: "r", Corpus: "builtin:stream", Limit: 2, StageSize: 2, Memory: tc.memory, Settings: s}.WithDefaults())
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.err)
			// A held-out evaluation reading that stream's memory is refused
			// at its first turn the same way.
			_, err = env.ExecuteActivity(a.Decide, activities.TurnInput{EpisodeInput: activities.EpisodeInput{Run: "h", EpisodeID: "h/e1",
				Kind: contract.KindHeldOut, Corpus: "builtin:heldout", CaseID: "heldout-0001", MemoryRuns: []string{"r"}, Frozen: true, Settings: s}})
			require.ErrorContains(t, err, tc.err)
		})
	}
}

// TestRunIDsAreClaimed: ValidateStream records a stream under its claim; the
// same claim (a continue-as-new, a restart) passes again, another claim of
// the run ID is refused at once, naming stream restart and a new ID, and
// changes nothing stored. It returns the spec with its defaults resolved.
func TestRunIDsAreClaimed(t *testing.T) {
	a, res, env := activityEnv(t)
	spec := contract.StreamSpec{RunID: "good2", Corpus: "builtin:stream", Limit: 5, Memory: contract.MemoryDisabled, Claim: "run-1"}
	v, err := env.ExecuteActivity(a.ValidateStream, spec)
	require.NoError(t, err)
	var plan activities.StreamPlan
	require.NoError(t, v.Get(&plan))
	require.Len(t, plan.CaseIDs, 5)
	require.Equal(t, contract.DefaultStageSize, plan.Spec.StageSize, "the defaults are resolved here, where the result is recorded")
	require.Equal(t, settings.DefaultDurability(), plan.Spec.Settings.Durability)
	_, err = env.ExecuteActivity(a.ValidateStream, spec)
	require.NoError(t, err, "the same run again")

	other := spec
	other.Claim, other.Limit = "run-2", 8
	_, err = env.ExecuteActivity(a.ValidateStream, other)
	require.ErrorContains(t, err, "stream good2: results: put run good2: results: the run ID names another run: to continue that run use `clinevo stream restart good2`; to start over choose a new run ID")
	var ae *temporal.ApplicationError
	require.ErrorAs(t, err, &ae)
	require.True(t, ae.NonRetryable())
	runs, _, err := res.Runs(context.Background())
	require.NoError(t, err)
	require.Len(t, runs, 1)
	require.Contains(t, string(runs[0].Spec), `"limit":5`, "the first run's spec stays")
}

// TestSettingsByReference: PrepareEvaluation stores an evaluation's settings
// once under their reference, and an episode that carries only the
// reference plays with them.
func TestSettingsByReference(t *testing.T) {
	a, _, env := activityEnv(t)
	s := settings.Default()
	s.Episode.MaxTurns = 1 // a first turn must finalise
	v, err := env.ExecuteActivity(a.PrepareEvaluation, contract.EvalSpec{RunID: "h", Kind: contract.KindHeldOut, Corpus: "builtin:heldout",
		CaseIDs: []string{"heldout-0001"}, Settings: s})
	require.NoError(t, err)
	var e contract.EvalSpec
	require.NoError(t, v.Get(&e))
	require.Regexp(t, "^sha256:", e.SettingsRef)
	require.Equal(t, 1, e.Concurrency, "defaults resolved")
	in := activities.TurnInput{EpisodeInput: activities.EpisodeInput{Run: "h", EpisodeID: "h/p1/s01/e0001-heldout-0001", Kind: contract.KindHeldOut,
		Corpus: "builtin:heldout", CaseID: "heldout-0001", Index: 1, Number: 1, Pass: 1, Stage: 1, Frozen: true, SettingsRef: e.SettingsRef}}
	_, err = env.ExecuteActivity(a.Decide, in)
	require.NoError(t, err)
	v, err = env.ExecuteActivity(a.Step, in)
	require.NoError(t, err)
	var st activities.TurnSummary
	require.NoError(t, v.Get(&st))
	require.True(t, st.Done, "episode.max_turns 1 from the referenced settings ended the episode")

	in.SettingsRef = "sha256:missing"
	in.EpisodeID = "h/p1/s01/e0002-heldout-0001"
	_, err = env.ExecuteActivity(a.Decide, in)
	require.ErrorContains(t, err, "its settings sha256:missing are not in the results store")
}

// activityEnv is the activities on a results file of their own, with the
// built-in roles and no memory, registered in a test activity environment.
func activityEnv(t *testing.T) (*activities.Activities, results.Store, *testsuite.TestActivityEnvironment) {
	t.Helper()
	res, err := sqlite.Open(context.Background(), t.TempDir()+"/results.db")
	require.NoError(t, err)
	t.Cleanup(func() { res.Close() })
	a := &activities.Activities{Benchmarks: defaultSet(t), Corpora: activities.NewCorpora(corpus.NewLibrary(defaultSet(t))), Results: res}
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivity(a)
	return a, res, env
}
