package llm

import (
	"context"
	"fmt"
	"slices"
)

type scoreReply struct {
	Score  *float64 `json:"score"`
	Reason string   `json:"reason"`
}

// Score asks the judge's model one graded question, a benchmark's own: the
// messages are template name of t rendered with data (no system data), the
// reply {"score": x, "reason": "..."} with x one of allowed. A reply still
// malformed after the repair request is answered by fallback (the
// benchmark's rubric) and counted as the judge's fallback.
func (j Judge) Score(ctx context.Context, t *Templates, name string, data any, allowed []float64, fallback func() (float64, error)) (float64, error) {
	msgs, err := t.Render(name, nil, data)
	if err != nil {
		return 0, err
	}
	var r scoreReply
	err = j.C.JSON(ctx, msgs, &r, func() error {
		if r.Score == nil || !slices.Contains(allowed, *r.Score) {
			return fmt.Errorf("score must be one of %v", allowed)
		}
		return nil
	})
	if IsMalformed(err) && fallback != nil {
		j.C.CountFallback(ctx)
		return fallback()
	}
	if err != nil {
		return 0, err
	}
	return *r.Score, nil
}
