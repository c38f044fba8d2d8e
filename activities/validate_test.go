package activities_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/clinevo/clinevo/activities"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/local"
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
	a := &activities.Activities{Corpora: activities.NewCorpora(), Results: res, Memory: mem, MemoryBackend: "local", Embeddings: worker}
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
