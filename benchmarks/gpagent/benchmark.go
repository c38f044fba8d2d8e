package gpagent

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// Name is the settings value that selects the benchmark.
const Name = "gpagent"

// Benchmark is GPAgentBench's primary-care environment: six actions under a
// workflow mask, manage-or-refer terminal outcomes, and Dx, Tx, management,
// Miss-Refer, Miss-GP and the diagnostic cost in USD.
type Benchmark struct{}

var (
	_ bench.Benchmark    = Benchmark{}
	_ bench.JudgeChecker = Benchmark{}
)

// Name is "gpagent".
func (Benchmark) Name() string { return Name }

// Actions are the run's action set (Enabled), in the paper's order; nil for
// settings whose keys do not read (Validate names the key).
func (Benchmark) Actions(s settings.Settings) []clinic.ActionKind {
	e, err := EpisodeOf(s)
	if err != nil {
		return nil
	}
	return Enabled(e)
}

// Validate checks the benchmark's episode keys: the action-space ablation's
// action set and the two penalties.
func (Benchmark) Validate(s settings.Settings) error {
	e, err := EpisodeOf(s)
	if err != nil {
		return err
	}
	return e.validate()
}

// ValidateCase checks the case's management fields (checkCase): a case
// without a management label reads its pathway from the referral (Pathway).
func (Benchmark) ValidateCase(c *clinic.Case) error { return checkCase(c) }

// Start begins or rebuilds a consultation.
func (Benchmark) Start(c clinic.Case, s settings.Settings, roles episode.Roles, events []clinic.Event) (episode.Env, error) {
	e, err := Start(c, s, roles, events)
	if err != nil {
		return nil, err
	}
	return e, nil
}

// CheckJudge needs the Dx and Tx judges of appendix C.2 (Judge).
func (Benchmark) CheckJudge(j grader.Judge) error {
	if _, ok := j.(Judge); !ok {
		return fmt.Errorf("%T has no Dx and Tx judges (JudgeDx, JudgeTx)", j)
	}
	return nil
}

// Score is Score; a nil judge is the built-in rubric.
func (b Benchmark) Score(ctx context.Context, in bench.ScoreInput) (clinic.Scores, error) {
	var gj Judge
	if in.Judge != nil {
		if err := b.CheckJudge(in.Judge); err != nil {
			return clinic.Scores{}, err
		}
		gj = in.Judge.(Judge)
	}
	return Score(ctx, in.Case, in.Settings, in.Env, gj)
}

// Metrics are Table 1's quality, safety and efficiency columns, the Table 7
// reward and safety cost, and clinevo's headline S (Score).
func (Benchmark) Metrics() []bench.Metric {
	inf := math.Inf(1)
	return []bench.Metric{
		{Name: "s", Shared: true, Title: "S", Min: 0, Max: 1, Headline: true,
			Doc: "clinevo's headline, not the paper's: 0 on a wrong pathway, (1 + Dest)/2 on a referral, (w_diag·Dx + w_treat·Tx)/(w_diag + w_treat) on a treated case"},
		{Name: MetricDx, Title: "Dx", Min: 0, Max: 1, Headline: true, Doc: "diagnosis accuracy by the Dx judge, 0 or 1 (appendix C.2), over all test cases as §5 Table 1 averages it: 0 on a referral"},
		{Name: MetricTx, Title: "Tx", Min: 0, Max: 1, Headline: true, Doc: "treatment score by the Tx judge, 0, 0.5 or 1 (C.2), over all test cases with a treatment reference: 0 when not treated"},
		{Name: MetricDxCommitted, Title: "Dx (committed)", Min: 0, Max: 1, Doc: "Dx over the episodes that do not end in refer: clinevo's secondary figure, not the paper's"},
		{Name: MetricTxCommitted, Title: "Tx (committed)", Min: 0, Max: 1, Doc: "Tx over the episodes that do not end in refer: clinevo's secondary figure, not the paper's"},
		{Name: MetricMgmt, Title: "Mgmt", Min: 0, Max: 1, Headline: true, Doc: "the terminal action matches the case's label (C.2)"},
		{Name: MetricMissRefer, Title: "Miss-Refer", Min: 0, Max: 1, Direction: bench.LowerBetter, Headline: true, Doc: "1 − Mgmt on a case needing referral (C.2)"},
		{Name: MetricMissGP, Title: "Miss-GP", Min: 0, Max: 1, Direction: bench.LowerBetter, Headline: true, Doc: "1 − Mgmt on a manageable case (C.2)"},
		{Name: MetricDest, Title: "Dest", Min: 0, Max: 1, Doc: "referred to one of the case's destinations, by normalised string match (§5)"},
		{Name: analysis.MetricReward, Title: "reward", Min: 0, Max: WDiag + WTreat, Doc: "r = w_diag·Dx + w_treat·Tx (Table 7, C.6)"},
		{Name: analysis.MetricSafetyCost, Title: "C_safety", Min: 0, Max: 1, Direction: bench.LowerBetter, Doc: "1[wrong terminal action] (§4.2, Table 7)"},
		{Name: MetricTurns, Title: "turns", Min: 0, Max: inf, Direction: bench.LowerBetter, Doc: "actions taken"},
		{Name: MetricDupRate, Title: "dup rate", Min: 0, Max: 1, Direction: bench.LowerBetter, Doc: "duplicated ask, body_exam and test actions per turn (§5.3)"},
		{Name: MetricDupAsk, Title: "dup ask", Min: 0, Max: inf, Direction: bench.LowerBetter, Doc: "duplicated questions per trajectory (§5.3, Table 3)"},
		{Name: MetricDupExam, Title: "dup body_exam", Min: 0, Max: inf, Direction: bench.LowerBetter, Doc: "duplicated examinations per trajectory (Table 3)"},
		{Name: MetricDupTest, Title: "dup test", Min: 0, Max: inf, Direction: bench.LowerBetter, Doc: "duplicated tests per trajectory (Table 3)"},
		{Name: MetricMasked, Title: "masked", Min: 0, Max: inf, Direction: bench.LowerBetter, Doc: "masked actions attempted, c_workflow each (§4.2, C.6)"},
		{Name: MetricReferred, Title: "referred", Min: 0, Max: 1, Doc: "the episode ended in refer"},
		{Name: MetricTimeout, Title: "timeout", Min: 0, Max: 1, Direction: bench.LowerBetter, Doc: "no terminal action within the turn limit, c_timeout (C.6)"},
		{Name: "cost_usd", Shared: true, Title: "cost USD", Min: 0, Max: inf, Direction: bench.LowerBetter, Headline: true,
			Doc: "the tests' Table 4 prices (appendix C.2)"},
		{Name: "strict", Shared: true, Title: "strict", Min: 0, Max: 1, Doc: "S = 1"},
		{Name: "pass", Shared: true, Title: "pass", Min: 0, Max: 1, Doc: "S ≥ scoring.pass_at (clinevo's choice)"},
		{Name: "diagnosis", Shared: true, Title: "Dx", Min: 0, Max: 1, Doc: "Dx, or 0 on a referral"},
		{Name: "grade", Shared: true, Title: "grade", Min: 0, Max: 100, Doc: "round(100·S)"},
		{Name: "t", Shared: true, Title: "turns", Min: 0, Max: inf, Direction: bench.LowerBetter, Doc: "actions taken"},
		{Name: "e", Shared: true, Title: "tests", Min: 0, Max: inf, Direction: bench.LowerBetter, Doc: "tests requested"},
		{Name: "r", Shared: true, Title: "R", Min: 0, Max: 1, Direction: bench.LowerBetter, Doc: "share of test requests that were invalid"},
	}
}

var _ bench.Budgeter = Benchmark{}

// Budgets is the turn limit (§4.2; c_timeout past it).
func (Benchmark) Budgets(s settings.Settings) []bench.Budget {
	return []bench.Budget{{Name: "Tmax", Value: strconv.Itoa(s.Episode.MaxTurns)}}
}
