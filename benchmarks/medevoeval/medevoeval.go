// Package medevoeval is MedEvoEval's environment (§3.2–3.3): the doctor
// earns every fact with ASK, REQUEST_TEST (from the case's catalog, shown)
// and CALL_MDT under the turn and test budgets Tmax and Emax, and closes with
// FINALIZE (diagnosis, evidence, plan, follow-up); the manager scores the
// outcome S and the process T, E, R and utility U (§4, appendix C.1–C.2).
package medevoeval

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// Name is the settings value that selects the benchmark.
const Name = "medevoeval"

// Benchmark is MedEvoEval.
type Benchmark struct{}

var _ bench.Benchmark = Benchmark{}

// Name is "medevoeval".
func (Benchmark) Name() string { return Name }

// Rules are MedEvoEval's: four actions, the catalog shown, Emax, and a
// FINALIZE with diagnosis, evidence, plan and follow-up (§3.2, B.3).
func Rules() episode.Rules {
	return episode.Rules{Actions: []clinic.ActionKind{clinic.Ask, clinic.RequestTest, clinic.CallMDT, clinic.Finalize}, ShowCatalog: true,
		FinalFields: []string{"diagnosis", "evidence", "plan", "followup"}, TestBudget: true}
}

// Actions are the four, CALL_MDT only where a consultant answers.
func (Benchmark) Actions(s settings.Settings) []clinic.ActionKind { return Rules().Offered(s.Episode) }

// Validate has nothing to add to the shared settings: MedEvoEval is the
// environment they describe.
func (Benchmark) Validate(settings.Settings) error { return nil }

// ValidateCase needs nothing beyond the native case format
// (corpus.Validate): a case with facts and a reference diagnosis plays.
func (Benchmark) ValidateCase(*clinic.Case) error { return nil }

// Start begins or rebuilds an episode.
func (Benchmark) Start(c clinic.Case, s settings.Settings, roles episode.Roles, events []clinic.Event) (episode.Env, error) {
	return episode.Restore(c, s.Episode, Rules(), roles, events), nil
}

// Score is the manager's judgement combined with the process metrics; a nil
// judge is the rubric.
func (Benchmark) Score(ctx context.Context, in bench.ScoreInput) (clinic.Scores, error) {
	judge := in.Judge
	if judge == nil {
		judge = grader.RubricJudge{W: in.Settings.Scoring}
	}
	final, _ := in.Env.Final()
	j, err := judge.Judge(ctx, in.Case, in.Env.Revealed(), final)
	if err != nil {
		return clinic.Scores{}, fmt.Errorf("judge: %w", err)
	}
	return grader.Combine(in.Case, in.Settings, in.Env.Events(), final, j), nil
}

// Metrics are the manager's outcome and process scores (§4, C.1–C.2).
func (Benchmark) Metrics() []bench.Metric { return Metrics() }

// Metrics are MedEvoEval's scores, shared by the question-and-test
// environments that score with the manager.
func Metrics() []bench.Metric {
	inf := math.Inf(1)
	return []bench.Metric{
		{Name: "s", Shared: true, Title: "S", Min: 0, Max: 1, Headline: true,
			Doc: "S = w_d·S_diag + w_e·S_evi + w_p·S_plan over the parts scored (MedEvoEval §4, C.1)"},
		{Name: "strict", Shared: true, Title: "strict acc", Min: 0, Max: 1, Headline: true,
			Doc: "the diagnosis names the reference or an acceptable name exactly (C.1)"},
		{Name: "pass", Shared: true, Title: "pass", Min: 0, Max: 1, Doc: "S ≥ τ_pass (C.1)"},
		{Name: "diagnosis", Shared: true, Title: "S_diag", Min: 0, Max: 1, Doc: "the diagnosis grade: 1, 0.75, 0.5, 0.25 or 0 (C.1)"},
		{Name: "grade", Shared: true, Title: "grade", Min: 0, Max: 100, Doc: "round(100·S)"},
		{Name: "u", Shared: true, Title: "U", Min: -1, Max: 1, Headline: true,
			Doc: "U = w1·S − w2·T/Tmax − w3·E/Emax − w4·R (C.2)"},
		{Name: "t", Shared: true, Title: "T", Min: 0, Max: inf, Direction: bench.LowerBetter, Doc: "non-final actions (C.2)"},
		{Name: "e", Shared: true, Title: "E", Min: 0, Max: inf, Direction: bench.LowerBetter, Doc: "tests requested against Emax (C.2)"},
		{Name: "r", Shared: true, Title: "R", Min: 0, Max: 1, Direction: bench.LowerBetter, Doc: "invalid-test rate (C.2)"},
		{Name: "cost_usd", Shared: true, Title: "cost USD", Min: 0, Max: inf, Direction: bench.LowerBetter,
			Doc: "base cost per turn plus the catalog price of every billed test (clinevo's price table)"},
	}
}

var _ bench.Budgeter = Benchmark{}

// Budgets are Tmax, Emax and the consultant (§3.2).
func (Benchmark) Budgets(s settings.Settings) []bench.Budget {
	return []bench.Budget{{Name: "Tmax", Value: strconv.Itoa(s.Episode.MaxTurns)}, {Name: "Emax", Value: strconv.Itoa(s.Episode.MaxTests)},
		{Name: "MDT", Value: s.Episode.MDT}}
}
