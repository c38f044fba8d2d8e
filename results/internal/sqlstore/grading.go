package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/results"
)

// PutTrace implements results.Grading.
func (s *Store) PutTrace(ctx context.Context, t clinic.Trace) error {
	what := "put trace " + t.EpisodeID
	b, err := json.Marshal(t)
	if err != nil {
		return s.fail(fmt.Errorf("results: %s: %w", what, err))
	}
	return s.write(ctx, what, `INSERT INTO traces(episode_id, trace) VALUES($1,$2) ON CONFLICT(episode_id) DO UPDATE SET trace=excluded.trace`,
		t.EpisodeID, string(b))
}

// Trace implements results.Grading.
func (s *Store) Trace(ctx context.Context, episodeID string) (clinic.Trace, error) {
	var t clinic.Trace
	if err := s.load(ctx, "trace "+episodeID, `SELECT trace FROM traces WHERE episode_id=$1`, episodeID, &t); err != nil {
		return clinic.Trace{}, err
	}
	return t, nil
}

// PutGrade implements results.Grading.
func (s *Store) PutGrade(ctx context.Context, episodeID string, grade any) error {
	b, err := json.Marshal(grade)
	if err != nil {
		return s.fail(fmt.Errorf("results: put grade %s: %w", episodeID, err))
	}
	res, err := s.exec(ctx, `UPDATE traces SET grade=$1 WHERE episode_id=$2`, string(b), episodeID)
	if err != nil {
		return s.fail(fmt.Errorf("results: put grade %s: %w", episodeID, err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return s.fail(fmt.Errorf("results: put grade %s: %w", episodeID, err))
	}
	if n == 0 {
		return fmt.Errorf("results: put grade %s: trace %w", episodeID, results.ErrNotFound)
	}
	return nil
}

// Grade implements results.Grading.
func (s *Store) Grade(ctx context.Context, episodeID string, v any) error {
	return s.load(ctx, "grade "+episodeID, `SELECT grade FROM traces WHERE episode_id=$1`, episodeID, v)
}

// PutProposal implements results.Grading.
func (s *Store) PutProposal(ctx context.Context, episodeID string, v any) error {
	what := "put proposal " + episodeID
	b, err := json.Marshal(v)
	if err != nil {
		return s.fail(fmt.Errorf("results: %s: %w", what, err))
	}
	return s.write(ctx, what, `INSERT INTO proposals(episode_id, body) VALUES($1,$2) ON CONFLICT(episode_id) DO NOTHING`, episodeID, string(b))
}

// Proposal implements results.Grading.
func (s *Store) Proposal(ctx context.Context, episodeID string, v any) error {
	return s.load(ctx, "proposal "+episodeID, `SELECT body FROM proposals WHERE episode_id=$1`, episodeID, v)
}

// PutSettings implements results.SharedSettings.
func (s *Store) PutSettings(ctx context.Context, ref string, body json.RawMessage) error {
	return s.write(ctx, "put settings "+ref, `INSERT INTO settings(ref, body) VALUES($1,$2) ON CONFLICT(ref) DO NOTHING`, ref, string(body))
}

// Settings implements results.SharedSettings.
func (s *Store) Settings(ctx context.Context, ref string) (json.RawMessage, error) {
	body, err := s.body(ctx, "settings "+ref, `SELECT body FROM settings WHERE ref=$1`, ref)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(body), nil
}

// Get implements results.ModelCache.
func (s *Store) Get(ctx context.Context, key string) (string, bool) {
	var reply string
	if err := s.queryRow(ctx, `SELECT reply FROM llm_cache WHERE key=$1`, key).Scan(&reply); err != nil {
		return "", false // a miss or a failed read: either way the model is asked
	}
	return reply, true
}

// Put implements results.ModelCache.
func (s *Store) Put(ctx context.Context, key, reply string) {
	// A failed write only loses the cache entry; the reply is already in hand.
	_, _ = s.exec(ctx, `INSERT INTO llm_cache(key, reply) VALUES($1,$2) ON CONFLICT(key) DO NOTHING`, key, reply)
}

// Drop implements results.ModelCache.
func (s *Store) Drop(ctx context.Context, key, stale string) {
	// A failed delete leaves the stale entry, which the next reader drops.
	_, _ = s.exec(ctx, `DELETE FROM llm_cache WHERE key=$1 AND reply=$2`, key, stale)
}
