package grader

import (
	"context"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
)

// MustAskJudge decides, for each must-ask topic, whether the doctor explicitly
// raised it in the questions it put to the patient (KlinikeBench §2.2 and
// §3.3: a binary decision per topic; what the patient volunteered alone does
// not count). Verdicts are in topic order.
type MustAskJudge interface {
	JudgeMustAsk(ctx context.Context, c *clinic.Case, topics, questions []string) ([]bool, error)
}

var _ MustAskJudge = RubricJudge{}

// JudgeMustAsk is the built-in cue matcher: a topic is raised when a question
// carries one of its cue words (episode.QuestionTopics). The doctor's stated
// intent does not count, only the words it said.
func (RubricJudge) JudgeMustAsk(_ context.Context, _ *clinic.Case, topics, questions []string) ([]bool, error) {
	return CueMustAsk(topics, questions), nil
}

// CueMustAsk is the cue matcher's verdicts (see RubricJudge.JudgeMustAsk).
func CueMustAsk(topics, questions []string) []bool {
	raised := map[string]bool{}
	for _, q := range questions {
		for _, t := range episode.QuestionTopics(q) {
			raised[t] = true
		}
	}
	out := make([]bool, len(topics))
	for i, t := range topics {
		out[i] = raised[t]
	}
	return out
}
