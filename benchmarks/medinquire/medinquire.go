// Package medinquire is EvoClinician's Med-Inquire (§3 and appendix): the
// doctor asks, orders tests by free text with no list shown, and submits a
// diagnosis alone; a test the case does not record is NOT AVAILABLE and is
// still paid for, an unknown test pays the fixed default price; the patient
// may answer beyond the record with consistent details, cached per episode;
// the judge grades the diagnosis 0–100 and the cost C is the base cost per
// turn plus every ordered test's price.
package medinquire

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/settings"
)

// Name is the settings value that selects the benchmark.
const Name = "medinquire"

// Benchmark is Med-Inquire.
type Benchmark struct{}

var (
	_ bench.Benchmark    = Benchmark{}
	_ bench.JudgeChecker = Benchmark{}
)

// Name is "medinquire".
func (Benchmark) Name() string { return Name }

// Rules are Med-Inquire's (EvoClinician §3: the three action types): ask,
// order a test by free text with no list shown, and submit a diagnosis; no
// test budget; the patient may answer beyond the record.
func Rules() episode.Rules {
	return episode.Rules{Actions: []clinic.ActionKind{clinic.Ask, clinic.RequestTest, clinic.Finalize}, FinalFields: []string{"diagnosis"},
		FreeText: true, Invent: true}
}

// Actions are the three.
func (Benchmark) Actions(s settings.Settings) []clinic.ActionKind { return Rules().Offered(s.Episode) }

// Validate has nothing to add to the shared settings.
func (Benchmark) Validate(settings.Settings) error { return nil }

// ValidateCase needs nothing beyond the native case format.
func (Benchmark) ValidateCase(*clinic.Case) error { return nil }

// Start begins or rebuilds an episode.
func (Benchmark) Start(c clinic.Case, s settings.Settings, roles episode.Roles, events []clinic.Event) (episode.Env, error) {
	return episode.Restore(c, s.Episode, Rules(), roles, events), nil
}

// CheckJudge needs a diagnosis judge (grader.DiagnosisJudge): the 0–100 grade.
func (Benchmark) CheckJudge(j grader.Judge) error {
	if _, ok := j.(grader.DiagnosisJudge); !ok {
		return fmt.Errorf("%T cannot grade a diagnosis 0–100 (grader.DiagnosisJudge)", j)
	}
	return nil
}

// Score is the judge's diagnosis grade S ∈ [0, 100] (kept as Grade, and as
// S/100 for the shared running means) with the encounter cost C = Σ c(a_t)
// and T counting every turn, the submission included (EvoClinician §3.6).
func (b Benchmark) Score(ctx context.Context, in bench.ScoreInput) (clinic.Scores, error) {
	var dj grader.DiagnosisJudge = grader.RubricJudge{W: in.Settings.Scoring}
	if in.Judge != nil {
		if err := b.CheckJudge(in.Judge); err != nil {
			return clinic.Scores{}, err
		}
		dj = in.Judge.(grader.DiagnosisJudge)
	}
	final, _ := in.Env.Final()
	g, err := dj.JudgeDiagnosis(ctx, in.Case, final.Diagnosis)
	if err != nil {
		return clinic.Scores{}, fmt.Errorf("judge: %w", err)
	}
	events := in.Env.Events()
	var sc clinic.Scores
	sc.Grade = g.Grade
	sc.S = float64(g.Grade) / 100
	sc.Diagnosis = sc.S
	sc.Strict = g.Grade == 100
	sc.Pass = sc.S >= in.Settings.Scoring.PassAt
	_, sc.E, sc.R = grader.Process(events, in.Settings.Episode)
	sc.T = len(events)
	for _, ev := range events {
		sc.Cost += ev.Cost
	}
	sc.Cost = grader.Round4(sc.Cost)
	sc.Referral = grader.ReferralNotScored
	sc.MustAsk, sc.Required = 1, 1
	return sc, nil
}

// Metrics are the judge's grade and the encounter cost (EvoClinician §3.6);
// U is not defined (Med-Inquire has no test budget Emax).
func (Benchmark) Metrics() []bench.Metric {
	inf := math.Inf(1)
	return []bench.Metric{
		{Name: "grade", Shared: true, Title: "grade", Min: 0, Max: 100, Headline: true,
			Doc: "the judge's grade of the submitted diagnosis, 0–100 (EvoClinician §3)"},
		{Name: "s", Shared: true, Title: "S", Min: 0, Max: 1, Headline: true, Doc: "grade/100, for the shared running means"},
		{Name: "cost_usd", Shared: true, Title: "C (USD)", Min: 0, Max: inf, Direction: bench.LowerBetter, Headline: true,
			Doc: "C = Σ c(a_t): the base cost per turn plus every ordered test's price (EvoClinician §3.6, appendix cost table)"},
		{Name: "strict", Shared: true, Title: "strict", Min: 0, Max: 1, Doc: "grade 100"},
		{Name: "pass", Shared: true, Title: "pass", Min: 0, Max: 1, Doc: "S ≥ scoring.pass_at (clinevo's choice; the paper reports the grade)"},
		{Name: "diagnosis", Shared: true, Title: "S_diag", Min: 0, Max: 1, Doc: "grade/100"},
		{Name: "t", Shared: true, Title: "turns", Min: 0, Max: inf, Direction: bench.LowerBetter, Doc: "every turn, the submission included (§3.6)"},
		{Name: "e", Shared: true, Title: "tests", Min: 0, Max: inf, Direction: bench.LowerBetter, Doc: "billable tests ordered"},
		{Name: "r", Shared: true, Title: "R", Min: 0, Max: 1, Direction: bench.LowerBetter, Doc: "share of test requests the record could not answer"},
	}
}

var _ bench.Budgeter = Benchmark{}

// Budgets is Tmax alone: Med-Inquire has no test budget and no consultant.
func (Benchmark) Budgets(s settings.Settings) []bench.Budget {
	return []bench.Budget{{Name: "Tmax", Value: strconv.Itoa(s.Episode.MaxTurns)}}
}

var _ llm.Prompts = Benchmark{}

// Templates: the judge grades the submitted diagnosis alone, 0–100
// (EvoClinician §3), with the shared judge_grade template.
func (Benchmark) Templates(role string) []string {
	if role == "judge" {
		return []string{llm.TemplateVersions["judge_grade"]}
	}
	return nil
}
