package llm

import (
	"context"
	"fmt"
	"slices"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
)

var _ grader.GPJudge = Judge{}

type scoreReply struct {
	Score  *float64 `json:"score"`
	Reason string   `json:"reason"`
}

// JudgeDx judges GPAgentBench's diagnosis accuracy (appendix C.2): 1 when the
// prediction is clinically equivalent to the ground truth, 0 otherwise, by
// the paper's three rules. A reply malformed after repair falls back to the
// rubric, counted as the judge's fallback.
func (j Judge) JudgeDx(ctx context.Context, c *clinic.Case, diagnosis string) (int, error) {
	s, err := j.score(ctx, "judge_dx", struct {
		Case      *clinic.Case
		Diagnosis string
	}{c, diagnosis}, []float64{0, 1}, func(gj grader.GPJudge) (float64, error) {
		g, err := gj.JudgeDx(ctx, c, diagnosis)
		return float64(g), err
	})
	return int(s), err
}

// JudgeTx judges GPAgentBench's treatment score (appendix C.2): 1, 0.5 or 0
// against the ground-truth treatment, by the paper's three rules.
func (j Judge) JudgeTx(ctx context.Context, c *clinic.Case, plan []string) (float64, error) {
	return j.score(ctx, "judge_tx", struct {
		Case *clinic.Case
		Plan []string
	}{c, plan}, []float64{0, 0.5, 1}, func(gj grader.GPJudge) (float64, error) { return gj.JudgeTx(ctx, c, plan) })
}

// score asks for one score among allowed; a reply malformed after repair
// falls back to the rubric.
func (j Judge) score(ctx context.Context, role string, data any, allowed []float64, fallback func(grader.GPJudge) (float64, error)) (float64, error) {
	msgs, err := Render(role, nil, data)
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
	if gj, ok := j.Fallback.(grader.GPJudge); ok && IsMalformed(err) {
		j.C.CountFallback(ctx)
		return fallback(gj)
	}
	if err != nil {
		return 0, err
	}
	return *r.Score, nil
}
