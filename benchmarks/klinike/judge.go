package klinike

import (
	"context"
	"fmt"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/settings"
)

// MustAskJudge decides, for each must-ask topic, whether the doctor explicitly
// raised it in the questions it put to the patient (KlinikeBench §2.2 and
// §3.3: a binary decision per topic; what the patient volunteered alone does
// not count). Verdicts are in topic order.
type MustAskJudge interface {
	JudgeMustAsk(ctx context.Context, c *clinic.Case, topics, questions []string) ([]bool, error)
}

// Judge is what scoring asks of a run's judge: the diagnosis grade (gate D)
// and the must-ask verdicts (gate H).
type Judge interface {
	grader.DiagnosisJudge
	MustAskJudge
}

// CheckJudge refuses a judge without the diagnosis grade or the must-ask
// verdicts, at start: scoring never falls back to the rubric in silence.
func (Benchmark) CheckJudge(j grader.Judge) error {
	var missing []string
	if _, ok := j.(grader.DiagnosisJudge); !ok {
		missing = append(missing, "JudgeDiagnosis (gate D)")
	}
	if _, ok := j.(MustAskJudge); !ok {
		missing = append(missing, "JudgeMustAsk (gate H)")
	}
	if len(missing) > 0 {
		return fmt.Errorf("%T has no %s", j, strings.Join(missing, " and no "))
	}
	return nil
}

// judgeOf is the judge scoring asks: the run's (checked), or the built-in
// Rubric for nil.
func judgeOf(s settings.Settings, j grader.Judge) (Judge, error) {
	if j == nil {
		return Rubric{RubricJudge: grader.RubricJudge{W: s.Scoring}}, nil
	}
	if err := (Benchmark{}).CheckJudge(j); err != nil {
		return nil, err
	}
	return j.(Judge), nil
}

// Rubric is the built-in judge: the rubric's diagnosis grade and the cue
// matcher's must-ask verdicts (Cues).
type Rubric struct{ grader.RubricJudge }

var _ Judge = Rubric{}

// JudgeMustAsk is the cue matcher (Cues).
func (Rubric) JudgeMustAsk(_ context.Context, _ *clinic.Case, topics, questions []string) ([]bool, error) {
	return Cues(topics, questions), nil
}

// Cues are the cue matcher's verdicts: a topic is raised when a question
// carries one of its cue words (episode.QuestionTopics). The doctor's stated
// intent does not count, only the words it said.
func Cues(topics, questions []string) []bool {
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

var _ llm.JudgeFormat = Benchmark{}

// ModelJudge is the run's model judge with the must-ask question beside the
// shared ones (ModelJudge).
func (Benchmark) ModelJudge(j llm.Judge, _ settings.Settings) grader.Judge {
	return ModelJudge{Shared: j}
}

// ModelJudge is a model judge that also gives must-ask verdicts; the final
// output's and the diagnosis's grades are the shared judge's.
type ModelJudge struct{ Shared llm.Judge }

var (
	_ Judge        = ModelJudge{}
	_ grader.Judge = ModelJudge{}
)

// Judge is the shared judge's.
func (j ModelJudge) Judge(ctx context.Context, c *clinic.Case, revealed string, final clinic.FinalOutput) (grader.Judgement, error) {
	return j.Shared.Judge(ctx, c, revealed, final)
}

// JudgeDiagnosis is the shared judge's 0–100 grade.
func (j ModelJudge) JudgeDiagnosis(ctx context.Context, c *clinic.Case, diagnosis []string) (grader.DiagnosisGrade, error) {
	return j.Shared.JudgeDiagnosis(ctx, c, diagnosis)
}

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
func (j ModelJudge) JudgeMustAsk(ctx context.Context, c *clinic.Case, topics, questions []string) ([]bool, error) {
	msgs, err := prompts.Render("judge_mustask", nil, struct{ Topics, Questions []string }{topics, questions})
	if err != nil {
		return nil, err
	}
	var r mustAskReply
	err = j.Shared.C.JSON(ctx, msgs, &r, func() error {
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
	if llm.IsMalformed(err) {
		j.Shared.C.CountFallback(ctx)
		return Cues(topics, questions), nil
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
