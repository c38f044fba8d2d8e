// Package sdbench is SDBench, the Sequential Diagnosis Benchmark (Nori et
// al. 2025, "Sequential Diagnosis with Language Models", arXiv 2506.22405):
// the doctor starts from a short case abstract and asks questions, orders
// tests and commits to one diagnosis (§2); a gatekeeper that holds the whole
// case (roles.gatekeeper) reveals a finding only when asked for it
// explicitly and answers tests the case does not record with results
// consistent with the case; a judge grades the diagnosis on a five-point
// rubric, correct at 4 or more (Table 1); and every encounter has a cost:
// $300 per physician visit, a run of consecutive questions ended by a
// diagnostic test, plus each test's price (§2, §3), so methods are compared
// on an accuracy–cost frontier. MAI-DxO's variants (§3.2) are a setting of
// the run (episode.variant) and its panel (doctor.mode: panel) has a prompt
// of its own here.
package sdbench

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// Name is the settings value that selects the benchmark.
const Name = "sdbench"

// Benchmark is SDBench.
type Benchmark struct{}

var (
	_ bench.Benchmark    = Benchmark{}
	_ bench.JudgeChecker = Benchmark{}
	_ bench.Budgeter     = Benchmark{}
	_ bench.Roles        = Benchmark{}
	_ corpus.CaseFields  = Benchmark{}
)

// Name is "sdbench".
func (Benchmark) Name() string { return Name }

// Actions are ask, order tests and diagnose (§2), as far as the run's
// variant allows them (§3.2).
func (Benchmark) Actions(s settings.Settings) []clinic.ActionKind {
	e, err := EpisodeOf(s)
	if err != nil {
		return Actions // Validate reports the key
	}
	return e.actions()
}

// Validate checks the benchmark's episode keys; static mode (the whole
// case at once) is not an SDBench encounter.
func (Benchmark) Validate(s settings.Settings) error {
	e, err := EpisodeOf(s)
	if err != nil {
		return err
	}
	if s.Episode.Mode == settings.Static {
		return fmt.Errorf("episode.mode static: SDBench is sequential (the doctor starts from the abstract), want interactive")
	}
	return e.validate()
}

// ValidateCase needs an abstract to start from and a final diagnosis.
func (Benchmark) ValidateCase(c *clinic.Case) error {
	switch {
	case strings.TrimSpace(c.Patient.OpeningComplaint) == "":
		return corpus.FieldError{Field: "patient_view.opening_complaint", Msg: "SDBench needs the case abstract the encounter starts from"}
	case strings.TrimSpace(c.Manager.Diagnosis.Name) == "":
		return corpus.FieldError{Field: "manager_view.diagnosis.display_name", Msg: "SDBench needs the final diagnosis"}
	}
	var r Record
	if err := c.Exam.Ext.Decode(&r); err != nil {
		return corpus.FieldError{Field: "exam_view.full_case", Msg: "want the full case record as text"}
	}
	return nil
}

// CaseFields are the full record in the exam view.
func (Benchmark) CaseFields() (exam, manager []string) {
	return []string{"full_case", "record_complete"}, nil
}

// Start begins or rebuilds an encounter.
func (Benchmark) Start(c clinic.Case, s settings.Settings, roles episode.Roles, events []clinic.Event) (episode.Env, error) {
	return Start(c, s, roles, events)
}

// CheckJudge needs the five-point question (LikertJudge).
func (Benchmark) CheckJudge(j grader.Judge) error {
	if _, ok := j.(LikertJudge); !ok {
		return fmt.Errorf("%T cannot grade a diagnosis on SDBench's five-point scale (sdbench.LikertJudge)", j)
	}
	return nil
}

// Score is the judge's five-point grade of the first final diagnosis (the
// encounter commits to one, §2; a forced end without one grades 1), correct
// at CorrectAt or more, and the encounter's cost: physician visits plus
// tests (§3).
func (b Benchmark) Score(ctx context.Context, in bench.ScoreInput) (clinic.Scores, error) {
	var lj LikertJudge = Rubric{grader.RubricJudge{W: in.Settings.Scoring}}
	if in.Judge != nil {
		if err := b.CheckJudge(in.Judge); err != nil {
			return clinic.Scores{}, err
		}
		lj = in.Judge.(LikertJudge)
	}
	final, _ := in.Env.Final()
	likert := 1
	if len(final.Diagnosis) > 0 {
		var err error
		if likert, err = lj.JudgeLikert(ctx, in.Case, final.Diagnosis[0]); err != nil {
			return clinic.Scores{}, fmt.Errorf("judge: %w", err)
		}
	}
	events := in.Env.Events()
	var sc clinic.Scores
	correct := likert >= CorrectAt
	sc.S = grader.Indicator(correct)
	sc.Pass, sc.Strict = correct, likert == 5
	sc.Diagnosis = float64(likert-1) / 4
	sc.T = len(events)
	c := costsOf(events)
	sc.E = c.tests
	sc.Cost = round(c.visitUSD + c.testUSD)
	_, _, sc.R = grader.Process(events, in.Settings.Episode)
	sc.Referral = grader.ReferralNotScored
	sc.MustAsk, sc.Required = 1, 1
	sc.Metrics = map[string]float64{"likert": float64(likert), "correct": grader.Indicator(correct), "visits": float64(c.visits),
		"visit_cost_usd": round(c.visitUSD), "test_cost_usd": round(c.testUSD), "unmatched_orders": float64(c.unmatched)}
	return sc, nil
}

// costs are an encounter's charges by kind.
type costs struct {
	visits, tests, unmatched int
	visitUSD, testUSD        float64
}

// costsOf sums the charges of events: the visits the turns opened, the
// tests performed and what the price table did not match.
func costsOf(events []clinic.Event) costs {
	var c costs
	for _, ev := range events {
		t := TurnOf(ev)
		if t.OpensVisit {
			c.visits++
			c.visitUSD += t.VisitUSD
		}
		c.testUSD += ev.Cost - t.VisitUSD
		for _, o := range t.Orders {
			if o.Status == clinic.StatusReturned && !o.Exam {
				c.tests++
				if o.Unmatched {
					c.unmatched++
				}
			}
		}
	}
	return c
}

// Metrics are accuracy and cost (§3): the judge's five-point score,
// correctness at 4 or more (its mean is the accuracy), the cost with its
// visit and test parts (its mean is the mean cost; the report's frontier
// divides total cost by correct diagnoses), and the orders the price table
// did not match.
func (Benchmark) Metrics() []bench.Metric {
	inf := math.Inf(1)
	return []bench.Metric{
		{Name: "correct", Title: "accuracy", Min: 0, Max: 1, Headline: true,
			Doc: "1 when the judge scores the diagnosis 4 or more on the five-point rubric, else 0; its mean is the diagnostic accuracy (Nori et al. 2025, §2 and §3)"},
		{Name: "cost_usd", Shared: true, Title: "cost (USD)", Min: 0, Max: inf, Direction: bench.LowerBetter, Headline: true,
			Doc: "$300 per physician visit (a run of consecutive questions and examinations, ended by a diagnostic test request) + the price of every test performed (Nori et al. 2025, §2 \"Estimating costs\", §3); tests at 2025 Medicare national amounts (prices.csv, clinevo's stand-in for the paper's health-system prices)"},
		{Name: "likert", Title: "judge score", Min: 1, Max: 5,
			Doc: "the judge's five-point score of the final diagnosis: 5 same, 4 mostly right, 3 partly right, 2 mostly wrong, 1 wrong (Nori et al. 2025, Table 1)"},
		{Name: "s", Shared: true, Title: "S", Min: 0, Max: 1, Doc: "correct, for the shared running means"},
		{Name: "pass", Shared: true, Title: "pass", Min: 0, Max: 1, Doc: "correct (judge score ≥ 4, Nori et al. 2025, §2)"},
		{Name: "strict", Shared: true, Title: "strict", Min: 0, Max: 1, Doc: "judge score 5"},
		{Name: "diagnosis", Shared: true, Title: "S_diag", Min: 0, Max: 1, Doc: "(judge score − 1)/4"},
		{Name: "visits", Title: "visits", Min: 0, Max: inf, Direction: bench.LowerBetter, Doc: "physician visits charged (Nori et al. 2025, §3: consecutive questions are one visit, ended by a diagnostic test request)"},
		{Name: "visit_cost_usd", Title: "visit cost (USD)", Min: 0, Max: inf, Direction: bench.LowerBetter, Doc: "the visits' part of the cost"},
		{Name: "test_cost_usd", Title: "test cost (USD)", Min: 0, Max: inf, Direction: bench.LowerBetter, Doc: "the tests' part of the cost"},
		{Name: "unmatched_orders", Title: "unmatched orders", Min: 0, Max: inf, Direction: bench.LowerBetter,
			Doc: "tests performed whose order the price table did not match, each priced at its category's median (clinevo's fallback; the paper asked a language model, §2)"},
		{Name: "t", Shared: true, Title: "turns", Min: 0, Max: inf, Direction: bench.LowerBetter, Doc: "every turn, the diagnosis included"},
		{Name: "e", Shared: true, Title: "tests", Min: 0, Max: inf, Direction: bench.LowerBetter, Doc: "diagnostic tests performed (examinations are part of the visit)"},
		{Name: "r", Shared: true, Title: "R", Min: 0, Max: 1, Direction: bench.LowerBetter, Doc: "share of test requests the record could not answer (clinevo's process metric)"},
	}
}

// Budgets are Tmax and the variant: no budget, or the budget.
func (Benchmark) Budgets(s settings.Settings) []bench.Budget {
	out := []bench.Budget{{Name: "Tmax", Value: strconv.Itoa(s.Episode.MaxTurns)}}
	if e, err := EpisodeOf(s); err == nil {
		out = append(out, bench.Budget{Name: "budget", Value: e.Mode()})
	}
	return out
}
