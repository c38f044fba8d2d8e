package results_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/results"
)

// TestUsageSumsExtraFields checks that usage, extra fields included, adds up
// per episode and role and per run.
func TestUsageSumsExtraFields(t *testing.T) {
	ctx := context.Background()
	st, err := results.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
	require.NoError(t, err)
	defer st.Close()
	add := func(ep, role string, u results.Usage) { require.NoError(t, st.AddUsage(ctx, ep, u, role)) }
	add("r1/p1/s01/e0001-a", "doctor", results.Usage{Calls: 2, PromptTokens: 100, CompletionTokens: 10, CostUSD: 0.5, ExtraFields: 2})
	add("r1/p1/s01/e0001-a", "doctor", results.Usage{Calls: 1, PromptTokens: 50, CompletionTokens: 5, CostUSD: 0.25, CacheHits: 1, ExtraFields: 1})
	add("r1/p1/s01/e0001-a", "judge", results.Usage{Calls: 1, ExtraFields: 4})
	add("r1/p1/s01/e0002-b", "doctor", results.Usage{Calls: 1, ExtraFields: 3})
	add("r2/p1/s01/e0001-a", "doctor", results.Usage{Calls: 1, ExtraFields: 100})

	ep, err := st.UsageOf(ctx, "r1/p1/s01/e0001-a")
	require.NoError(t, err)
	require.Equal(t, map[string]results.Usage{
		"doctor": {Calls: 3, PromptTokens: 150, CompletionTokens: 15, CostUSD: 0.75, CacheHits: 1, ExtraFields: 3},
		"judge":  {Calls: 1, ExtraFields: 4},
	}, ep)
	run, err := st.RunUsage(ctx, "r1")
	require.NoError(t, err)
	require.Equal(t, 6, run["doctor"].ExtraFields, "3 + 3 from the two episodes of r1, none from r2")
	require.Equal(t, 4, run["judge"].ExtraFields)
}

// TestOpenAddsExtraFieldsToAnOldFile opens a results file written before usage
// had extra_fields: the column is added, old rows read 0, new usage adds up.
func TestOpenAddsExtraFieldsToAnOldFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "results.db")
	db, err := sql.Open("sqlite", "file:"+path)
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, `CREATE TABLE usage (episode_id TEXT NOT NULL, role TEXT NOT NULL, calls INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL, cost_usd REAL NOT NULL, cache_hits INTEGER NOT NULL, PRIMARY KEY (episode_id, role));
INSERT INTO usage VALUES ('r/e1', 'doctor', 2, 10, 5, 0.1, 0);`)
	require.NoError(t, err)
	require.NoError(t, db.Close())

	for range 2 { // opening twice must not add the column twice
		st, err := results.Open(ctx, path)
		require.NoError(t, err)
		require.NoError(t, st.Close())
	}
	st, err := results.Open(ctx, path)
	require.NoError(t, err)
	defer st.Close()
	u, err := st.UsageOf(ctx, "r/e1")
	require.NoError(t, err)
	require.Equal(t, results.Usage{Calls: 2, PromptTokens: 10, CompletionTokens: 5, CostUSD: 0.1}, u["doctor"])
	require.NoError(t, st.AddUsage(ctx, "r/e1", results.Usage{Calls: 1, ExtraFields: 2}, "doctor"))
	u, err = st.UsageOf(ctx, "r/e1")
	require.NoError(t, err)
	require.Equal(t, 2, u["doctor"].ExtraFields)
	require.Equal(t, 3, u["doctor"].Calls)
}
