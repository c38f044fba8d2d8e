package gpagent

import (
	"context"
	"embed"
	"fmt"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/textmatch"
)

// Judge judges GPAgentBench's two semantic scores (appendix C.2): the
// diagnosis accuracy, 1 when the predicted diagnosis is clinically equivalent
// to the ground truth and 0 otherwise, and the treatment score in {0, 0.5, 1}
// against the ground-truth treatment. A run's judge must have both
// (Benchmark.CheckJudge).
type Judge interface {
	JudgeDx(ctx context.Context, c *clinic.Case, diagnosis string) (int, error)
	JudgeTx(ctx context.Context, c *clinic.Case, plan []string) (float64, error)
}

// Rubric is the built-in judge: the shared rubric with C.2's two scores.
type Rubric struct{ grader.RubricJudge }

var (
	_ Judge        = Rubric{}
	_ grader.Judge = Rubric{}
)

// rubric is the built-in judge under the run's scoring settings.
func rubric(s settings.Scoring) Rubric { return Rubric{grader.RubricJudge{W: s}} }

// JudgeDx is the rubric's reading of C.2's three rules: the same condition in
// other words counts (an accepted name: grade 1); so does a name that differs
// only in specificity when the core condition is kept ("pneumonia" for
// "bacterial pneumonia": the prediction is the more specific name, or holds at
// least half of the reference's specific words); a vague or overly broad name
// does not ("infection" for "urinary tract infection"), nor one naming a
// dangerous alternative.
func (Rubric) JudgeDx(_ context.Context, c *clinic.Case, diagnosis string) (int, error) {
	dx := c.Manager.Diagnosis
	switch grader.GradeDiagnosis(diagnosis, dx) {
	case 1:
		return 1, nil
	case 0.75:
		p := textmatch.Specific(diagnosis)
		for _, ref := range append([]string{dx.Name}, dx.Acceptable...) {
			r := textmatch.Specific(ref)
			if grader.NameGrade(diagnosis, ref) < 0.75 || len(r) == 0 {
				continue
			}
			if textmatch.Subset(r, p) || 2*len(p) >= len(r) {
				return 1, nil
			}
		}
	}
	return 0, nil
}

// txFullAt is the share of the ground-truth treatment items a plan must cover
// for the rubric's 1: clinevo's reading of C.2's "key therapeutic
// components" (the paper gives no share).
const txFullAt = 0.75

// genericPlan are the words of a plan that would fit any patient: review
// and follow-up timing, safety-netting, reassurance, rest, fluids, simple
// pain relief. A treatment item made of them alone names no therapy of the
// case, so matching it earns nothing (C.2's 0.5 is for "some clinically
// relevant components", and C.2 penalises a plan "too nonspecific"). The
// list is clinevo's.
var genericPlan = textmatch.Set(`review follow up within weeks week days day hours hour two three four five seven ten fourteen
twenty 24 48 safety net netting advice advise reassure reassurance return worse worsen worsening persist
analgesia analgesic painkiller simple rest fluids drink antipyretic symptom symptomatic treatment treat
monitor meanwhile again gp needed offer consider explain education lifestyle home self care plan manage management`)

// specificPlan are an item's content words that do not fit any case.
func specificPlan(item string) map[string]bool {
	out := map[string]bool{}
	for w := range textmatch.Set(item) {
		if !genericPlan[w] {
			out[w] = true
		}
	}
	return out
}

// JudgeTx is the rubric's reading of C.2's treatment rules: 0 when the plan
// holds an unsafe item of the case; 1 when it covers the key components (at
// least three quarters of the ground-truth treatment items, each matched as
// the evidence rubric matches key points); 0.5 when it covers some; 0 when it
// covers none. Only the case-specific items count, and a plan item meets one
// only by sharing one of its specific words (specificPlan), so a plan that
// would fit any case earns 0; a reference with no specific item (an
// imported corpus) is matched on all its items.
func (r Rubric) JudgeTx(_ context.Context, c *clinic.Case, plan []string) (float64, error) {
	ref := TreatmentReference(c)
	if len(ref) == 0 {
		return 0, fmt.Errorf("case %s has no ground-truth treatment", c.ID)
	}
	for _, p := range plan {
		for _, u := range c.Manager.UnsafeManagement {
			if textmatch.Coverage(textmatch.Set(u), textmatch.Set(p)) >= 0.6 {
				return 0, nil
			}
		}
	}
	var key []string
	for _, item := range ref {
		if len(specificPlan(item)) > 0 {
			key = append(key, item)
		}
	}
	if len(key) == 0 {
		key = ref
	}
	matched := 0
	for _, item := range key {
		want := specificPlan(item)
		for _, p := range plan {
			got := textmatch.Set(p)
			if textmatch.Coverage(textmatch.Set(item), got) >= r.W.MatchAt && (len(want) == 0 || textmatch.Coverage(want, got) > 0) {
				matched++
				break
			}
		}
	}
	switch share := float64(matched) / float64(len(key)); {
	case share >= txFullAt:
		return 1, nil
	case share > 0:
		return 0.5, nil
	}
	return 0, nil
}

// ModelJudge is the run's model judge with C.2's two questions: the shared
// model judge (its other questions, its model and cache), asking the Dx and
// Tx questions of this benchmark's templates; a reply malformed after repair
// is answered by the rubric, counted as the judge's fallback.
type ModelJudge struct {
	Shared llm.Judge
	Rubric Rubric
}

var (
	_ Judge            = ModelJudge{}
	_ grader.Judge     = ModelJudge{}
	_ llm.JudgeFormat  = Benchmark{}
	_ llm.DoctorFormat = Benchmark{}
	_ llm.Prompts      = Benchmark{}
)

// ModelJudge is j with the Dx and Tx questions, the rubric under s as their
// fallback.
func (Benchmark) ModelJudge(j llm.Judge, s settings.Settings) grader.Judge {
	return ModelJudge{Shared: j, Rubric: rubric(s.Scoring)}
}

// Judge is the shared model judge's grading of a final output.
func (j ModelJudge) Judge(ctx context.Context, c *clinic.Case, revealed string, final clinic.FinalOutput) (grader.Judgement, error) {
	return j.Shared.Judge(ctx, c, revealed, final)
}

// JudgeDx asks the Dx question (C.2's three rules): 1 or 0.
func (j ModelJudge) JudgeDx(ctx context.Context, c *clinic.Case, diagnosis string) (int, error) {
	s, err := j.Shared.Score(ctx, templates, "judge_dx", struct {
		Case      *clinic.Case
		Diagnosis string
	}{c, diagnosis}, []float64{0, 1}, func() (float64, error) {
		g, err := j.Rubric.JudgeDx(ctx, c, diagnosis)
		return float64(g), err
	})
	return int(s), err
}

// JudgeTx asks the Tx question (C.2's three rules): 1, 0.5 or 0 against the
// ground-truth treatment.
func (j ModelJudge) JudgeTx(ctx context.Context, c *clinic.Case, plan []string) (float64, error) {
	return j.Shared.Score(ctx, templates, "judge_tx", struct {
		Case      *clinic.Case
		Plan      []string
		Reference []string
	}{c, plan, TreatmentReference(c)}, []float64{0, 0.5, 1}, func() (float64, error) { return j.Rubric.JudgeTx(ctx, c, plan) })
}

//go:embed prompts/*.tmpl
var promptFiles embed.FS

// templateVersions are the benchmark's prompt templates with the versions
// runs log.
var templateVersions = map[string]string{"doctor_gp": "doctor_gp/1", "judge_dx": "judge_dx/1", "judge_tx": "judge_tx/1"}

var templates = llm.MustTemplates(promptFiles, "prompts", templateVersions)

// Templates are the versions of the templates a role renders: the GP
// doctor's, and the judge's Dx and Tx questions.
func (Benchmark) Templates(role string) []string {
	switch role {
	case "doctor":
		return []string{templates.Version("doctor_gp")}
	case "judge":
		return []string{templates.Version("judge_dx"), templates.Version("judge_tx")}
	}
	return nil
}
