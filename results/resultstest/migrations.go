package resultstest

import (
	"context"
	"database/sql"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/results"
)

// migrates6: a store at schema version 6 (before cached tokens and endpoint
// limits were stored) keeps its usage through the migration to 7, the new
// columns read 0, and the migrated store takes and sums them.
func migrates6(t *testing.T, b Backend) {
	if b.MigrateTo == nil || b.Raw == nil {
		t.Skip("the backend gives no MigrateTo and Raw")
	}
	ctx := context.Background()
	loc := b.Fresh(t)
	require.NoError(t, b.MigrateTo(ctx, loc, 6))
	db := b.Raw(t, loc)
	require.Equal(t, []int{1, 2, 3, 4, 5, 6}, Versions(t, db))
	// A row as a version-6 build wrote it: no column of version 7 exists yet.
	_, err := db.ExecContext(ctx, `INSERT INTO usage(episode_id, role, calls, prompt_tokens, completion_tokens, cost_usd, cache_hits, model, extra_fields)
		VALUES('old/p1/s1/e1-a', 'doctor', 3, 300, 40, 0.75, 1, 'm-doc', 2)`)
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, `INSERT INTO usage(episode_id, role, cached_tokens) VALUES('x', 'doctor', 1)`)
	require.ErrorContains(t, err, "cached_tokens", "version 6 has no cached_tokens column")

	s := b.open(t, loc)
	require.Equal(t, []int{1, 2, 3, 4, 5, 6, 7, 8, 9}, Versions(t, db))
	old := results.Usage{Model: "m-doc", Calls: 3, PromptTokens: 300, CompletionTokens: 40, CostUSD: 0.75, CacheHits: 1, ExtraFields: 2}
	u, err := s.RunUsage(ctx, "old")
	require.NoError(t, err)
	require.Equal(t, map[string]results.Usage{"doctor": old}, u, "the old row, its new columns 0")
	require.NoError(t, s.AddUsage(ctx, "old/p1/s1/e1-a", results.Usage{Calls: 1, PromptTokens: 100, CachedTokens: 64,
		Endpoint: "http://m/v1 m-doc", RateLimited: 1, WaitedMS: 250, Limit: 3, LimitAt: 1000}, "doctor"))
	u, err = s.UsageOf(ctx, "old/p1/s1/e1-a")
	require.NoError(t, err)
	// 3+1 calls, 300+100 prompt tokens; the rest of the old row as it was.
	require.Equal(t, map[string]results.Usage{"doctor": {Model: "m-doc", Calls: 4, PromptTokens: 400, CompletionTokens: 40, CostUSD: 0.75, CacheHits: 1,
		ExtraFields: 2, CachedTokens: 64, Endpoint: "http://m/v1 m-doc", RateLimited: 1, WaitedMS: 250, Limit: 3, LimitAt: 1000}}, u)
}

// Versions reads the applied schema versions of a store's database.
func Versions(t testing.TB, db *sql.DB) []int {
	t.Helper()
	return Column[int](t, db, `SELECT version FROM schema_migrations ORDER BY version`)
}

// Column runs a query on a store's database and returns its first column.
func Column[T any](t testing.TB, db *sql.DB, query string) []T {
	t.Helper()
	rows, err := db.Query(query)
	require.NoError(t, err)
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		require.NoError(t, rows.Scan(&v))
		out = append(out, v)
	}
	require.NoError(t, rows.Err())
	return out
}
