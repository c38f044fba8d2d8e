package sdbench

import (
	"context"
	"embed"
	"fmt"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/settings"
)

// CorrectAt is the judge's score from which a diagnosis counts as correct
// (Nori et al. 2025, §2: "a cut-off of ≥ 4 on a five-point Likert scale").
const CorrectAt = 4

// LikertJudge grades a final diagnosis against the case's on the paper's
// five-point scale (Nori et al. 2025, Table 1): 5 the same diagnosis, 4
// mostly right, 3 partly right, 2 mostly wrong, 1 wrong. A run's judge must
// have it (CheckJudge).
type LikertJudge interface {
	JudgeLikert(ctx context.Context, c *clinic.Case, diagnosis string) (int, error)
}

// Rubric is the built-in judge: the shared diagnosis rubric's grade read on
// the five-point scale.
type Rubric struct{ grader.RubricJudge }

var (
	_ LikertJudge  = Rubric{}
	_ grader.Judge = Rubric{}
)

// JudgeLikert maps the shared name grade (grader.GradeDiagnosis) to the
// scale: 1 (the same condition) → 5; 0.75 (more or less specific) → 4;
// 0.5 (specific words overlap by half) → 3; 0.25 (a shared specific word) →
// 2; 0, or a dangerous alternative → 1. The mapping is clinevo's reading of
// the paper's anchors.
func (Rubric) JudgeLikert(_ context.Context, c *clinic.Case, diagnosis string) (int, error) {
	switch g := grader.GradeDiagnosis(diagnosis, c.Manager.Diagnosis); {
	case g >= 1:
		return 5, nil
	case g >= 0.75:
		return 4, nil
	case g >= 0.5:
		return 3, nil
	case g > 0:
		return 2, nil
	}
	return 1, nil
}

// ModelJudge is the run's model judge asking the five-point question of
// this benchmark's template; a reply malformed after repair is answered by
// the rubric and counted as the judge's fallback.
type ModelJudge struct {
	Shared llm.Judge
	Rubric Rubric
}

var (
	_ LikertJudge     = ModelJudge{}
	_ grader.Judge    = ModelJudge{}
	_ llm.JudgeFormat = Benchmark{}
	_ llm.Prompts     = Benchmark{}
	_ llm.RoleMaker   = Benchmark{}
)

// ModelJudge is j with the five-point question, the rubric under s as its
// fallback.
func (Benchmark) ModelJudge(j llm.Judge, s settings.Settings) grader.Judge {
	return ModelJudge{Shared: j, Rubric: Rubric{grader.RubricJudge{W: s.Scoring}}}
}

// Judge is the shared model judge's grading of a final output.
func (j ModelJudge) Judge(ctx context.Context, c *clinic.Case, revealed string, final clinic.FinalOutput) (grader.Judgement, error) {
	return j.Shared.Judge(ctx, c, revealed, final)
}

// JudgeLikert asks the five-point question.
func (j ModelJudge) JudgeLikert(ctx context.Context, c *clinic.Case, diagnosis string) (int, error) {
	s, err := j.Shared.Score(ctx, templates, "judge_likert", struct {
		Case      *clinic.Case
		Diagnosis string
		FullCase  string // the judge reads the case file (Nori et al. 2025, §2)
	}{c, diagnosis, RecordOf(c).FullCase}, []float64{1, 2, 3, 4, 5}, func() (float64, error) {
		g, err := j.Rubric.JudgeLikert(ctx, c, diagnosis)
		return float64(g), err
	})
	return int(s), err
}

// ModelRole is the gatekeeper on a model (roles.gatekeeper).
func (Benchmark) ModelRole(name string, c *llm.Client) (any, error) {
	if name != Role {
		return nil, fmt.Errorf("sdbench has no role %q", name)
	}
	return ModelGatekeeper{C: c}, nil
}

// Roles are the one the benchmark adds: the gatekeeper.
func (Benchmark) Roles() []string { return []string{Role} }

//go:embed prompts/*.tmpl
var promptFiles embed.FS

var templateVersions = map[string]string{"gatekeeper_answer": "sd_gatekeeper_answer/1", "gatekeeper_result": "sd_gatekeeper_result/1", "judge_likert": "sd_judge_likert/2",
	"doctor_sd": "sd_doctor/1", "panel_sd": "sd_panel/1"}

var templates = llm.MustTemplates(promptFiles, "prompts", templateVersions)

// Templates are the versions of the templates a role renders.
func (Benchmark) Templates(role string) []string {
	switch role {
	case "judge":
		return []string{templates.Version("judge_likert")}
	case "doctor":
		return []string{templates.Version("doctor_sd"), templates.Version("panel_sd")}
	case Role:
		return []string{templates.Version("gatekeeper_answer"), templates.Version("gatekeeper_result")}
	}
	return nil
}
