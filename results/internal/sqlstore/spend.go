package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/results"
)

// AddUsage implements results.Spend. The sum is computed under the row lock,
// so concurrent additions from several workers all count. The endpoint's
// limit is a reading, not a sum: the one taken last (the highest limit_at)
// stays.
func (s *Store) AddUsage(ctx context.Context, episodeID string, u results.Usage, role string) error {
	return s.write(ctx, "add usage "+episodeID, `INSERT INTO usage(episode_id, role, calls, prompt_tokens, completion_tokens, cost_usd, cache_hits, model,
		extra_fields, cached_tokens, endpoint, rate_limited, waited_ms, endpoint_limit, limit_at, served_models, fingerprints)
		VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17) ON CONFLICT(episode_id, role) DO UPDATE SET
		served_models=`+addedNames("served_models")+`, fingerprints=`+addedNames("fingerprints")+`, calls=usage.calls+excluded.calls,
		prompt_tokens=usage.prompt_tokens+excluded.prompt_tokens, completion_tokens=usage.completion_tokens+excluded.completion_tokens,
		cost_usd=usage.cost_usd+excluded.cost_usd, cache_hits=usage.cache_hits+excluded.cache_hits, extra_fields=usage.extra_fields+excluded.extra_fields,
		model=CASE WHEN excluded.model<>'' THEN excluded.model ELSE usage.model END,
		cached_tokens=usage.cached_tokens+excluded.cached_tokens, rate_limited=usage.rate_limited+excluded.rate_limited,
		waited_ms=usage.waited_ms+excluded.waited_ms,
		endpoint=CASE WHEN excluded.endpoint<>'' THEN excluded.endpoint ELSE usage.endpoint END,
		endpoint_limit=CASE WHEN excluded.limit_at>usage.limit_at THEN excluded.endpoint_limit ELSE usage.endpoint_limit END,
		limit_at=CASE WHEN excluded.limit_at>usage.limit_at THEN excluded.limit_at ELSE usage.limit_at END`,
		episodeID, role, u.Calls, u.PromptTokens, u.CompletionTokens, u.CostUSD, u.CacheHits, u.Model, u.ExtraFields,
		u.CachedTokens, u.Endpoint, u.RateLimited, u.WaitedMS, u.Limit, u.LimitAt, joinNames(u.ServedModels), joinNames(u.Fingerprints))
}

// A names column (served_models, fingerprints) holds a set of names joined
// by commas (providers' model names and fingerprints hold none); the
// readers split it and drop repeats (splitNames).
func joinNames(names []string) string { return strings.Join(names, ",") }

func splitNames(col string) []string {
	var out []string
	for _, n := range strings.Split(col, ",") {
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// addedNames is the SQL of names column col after an upsert: the stored
// names, with the new ones appended unless the stored list holds them
// already as a whole (replace() finds them exactly, where LIKE would read
// a "_" of a name as a wildcard); a list appended to one that holds part
// of it repeats names, which splitNames drops.
func addedNames(col string) string {
	return fmt.Sprintf(`CASE WHEN excluded.%[1]s='' OR replace(','||usage.%[1]s||',', ','||excluded.%[1]s||',', '')<>','||usage.%[1]s||','
		THEN usage.%[1]s WHEN usage.%[1]s='' THEN excluded.%[1]s ELSE usage.%[1]s||','||excluded.%[1]s END`, col)
}

// UsageOf implements results.Spend.
func (s *Store) UsageOf(ctx context.Context, episodeID string) (map[string]results.Usage, error) {
	return s.usage(ctx, "usage "+episodeID, `SELECT role, model, calls, prompt_tokens, completion_tokens, cost_usd, cache_hits, extra_fields,
		cached_tokens, endpoint, rate_limited, waited_ms, endpoint_limit, limit_at, served_models, fingerprints FROM usage WHERE episode_id=$1 ORDER BY role`, episodeID)
}

// RunUsage implements results.Spend.
func (s *Store) RunUsage(ctx context.Context, run string) (map[string]results.Usage, error) {
	// The run's episode IDs are the keys from "run/" up to "run0" ('0' is the
	// byte after '/'; keys collate bytewise in both engines): a range the
	// primary key's index serves, and no LIKE, since a run name may hold % or
	// _. PostgreSQL's SUM of a BIGINT is a NUMERIC; the casts bring the sums
	// back to integers. The endpoint's limit is the latest reading (the row
	// of the highest limit_at), not a sum; the names columns are joined.
	return s.usage(ctx, "run usage "+run, `SELECT role, MAX(model), CAST(SUM(calls) AS BIGINT), CAST(SUM(prompt_tokens) AS BIGINT),
		CAST(SUM(completion_tokens) AS BIGINT), SUM(cost_usd), CAST(SUM(cache_hits) AS BIGINT), CAST(SUM(extra_fields) AS BIGINT),
		CAST(SUM(cached_tokens) AS BIGINT), MAX(endpoint), CAST(SUM(rate_limited) AS BIGINT), SUM(waited_ms),
		(SELECT l.endpoint_limit FROM usage l WHERE l.episode_id >= $1 AND l.episode_id < $2 AND l.role = usage.role ORDER BY l.limit_at DESC LIMIT 1),
		MAX(limit_at), `+fmt.Sprintf(s.c.Dialect.joined, "served_models")+`, `+fmt.Sprintf(s.c.Dialect.joined, "fingerprints")+`
		FROM usage WHERE episode_id >= $1 AND episode_id < $2 GROUP BY role ORDER BY role`, run+"/", run+"0")
}

// usage reads (role, model, calls, prompt, completion, cost, cache hits,
// extra fields, cached tokens, endpoint, rate limited, waited, limit, limit
// at, served models, fingerprints) rows.
func (s *Store) usage(ctx context.Context, what, query string, args ...any) (map[string]results.Usage, error) {
	out := map[string]results.Usage{}
	err := s.each(ctx, what, query, args, func(rows *sql.Rows) error {
		var role, served, fingerprints string
		var u results.Usage
		if err := rows.Scan(&role, &u.Model, &u.Calls, &u.PromptTokens, &u.CompletionTokens, &u.CostUSD, &u.CacheHits, &u.ExtraFields,
			&u.CachedTokens, &u.Endpoint, &u.RateLimited, &u.WaitedMS, &u.Limit, &u.LimitAt, &served, &fingerprints); err != nil {
			return err
		}
		u.ServedModels, u.Fingerprints = splitNames(served), splitNames(fingerprints)
		out[role] = u
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// AddTime implements results.Spend.
func (s *Store) AddTime(ctx context.Context, episodeID, phase string, ms float64) error {
	return s.write(ctx, "add time "+episodeID, `INSERT INTO times(episode_id, phase, ms) VALUES($1,$2,$3)
		ON CONFLICT(episode_id, phase) DO UPDATE SET ms=times.ms+excluded.ms`, episodeID, phase, ms)
}

// TimeOf implements results.Spend.
func (s *Store) TimeOf(ctx context.Context, episodeID string) (map[string]float64, error) {
	out := map[string]float64{}
	err := s.each(ctx, "time "+episodeID, `SELECT phase, ms FROM times WHERE episode_id=$1 ORDER BY phase`, []any{episodeID}, func(rows *sql.Rows) error {
		var phase string
		var ms float64
		if err := rows.Scan(&phase, &ms); err != nil {
			return err
		}
		out[phase] = ms
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
