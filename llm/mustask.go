package llm

import (
	"context"
	"fmt"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
)

var _ grader.MustAskJudge = Judge{}

type mustAskReply struct {
	Verdicts []struct {
		Topic  string `json:"topic"`
		Raised *bool  `json:"raised"`
	} `json:"verdicts"`
}

// JudgeMustAsk asks the model, per must-ask topic, whether the doctor
// explicitly raised it (KlinikeBench §3.3: a binary decision per topic, at
// temperature 0). A reply malformed after repair falls back to the cue
// matcher and is counted as the judge's fallback.
func (j Judge) JudgeMustAsk(ctx context.Context, c *clinic.Case, topics, questions []string) ([]bool, error) {
	msgs, err := Render("judge_mustask", nil, struct{ Topics, Questions []string }{topics, questions})
	if err != nil {
		return nil, err
	}
	var r mustAskReply
	err = j.C.JSON(ctx, msgs, &r, func() error {
		if len(r.Verdicts) != len(topics) {
			return fmt.Errorf("%d verdicts for %d topics; give one per topic in order", len(r.Verdicts), len(topics))
		}
		for i, v := range r.Verdicts {
			if !strings.EqualFold(strings.TrimSpace(v.Topic), topics[i]) {
				return fmt.Errorf("verdict %d is for %q, want %q", i+1, v.Topic, topics[i])
			}
			if v.Raised == nil {
				return fmt.Errorf("verdict %d (%s) needs raised: true or false", i+1, topics[i])
			}
		}
		return nil
	})
	if IsMalformed(err) {
		j.C.countFallback(ctx)
		return grader.CueMustAsk(topics, questions), nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]bool, len(topics))
	for i, v := range r.Verdicts {
		out[i] = *v.Raised
	}
	return out, nil
}
