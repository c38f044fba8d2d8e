package sdbench_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/benchmarks/sdbench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/textmatch"
)

func start(t *testing.T, c clinic.Case, s settings.Settings, roles episode.Roles, events []clinic.Event) *sdbench.Env {
	t.Helper()
	env, err := sdbench.Start(c, s, roles, events)
	require.NoError(t, err)
	return env
}

func step(t *testing.T, env *sdbench.Env, o clinic.DoctorOutput) clinic.Event {
	t.Helper()
	ev, err := env.Step(context.Background(), episode.StepInput{Output: o})
	require.NoError(t, err)
	return ev
}

// unrecorded is a billable catalog test the case's record does not hold.
func unrecorded(t *testing.T, c clinic.Case) string {
	for _, n := range []string{"chest x ray", "ecg", "urinalysis", "lipid panel", "ct head", "ferritin", "d dimer"} {
		recorded := false
		for _, tv := range c.Exam.Tests {
			recorded = recorded || tv.Name == n
		}
		if !recorded {
			return n
		}
	}
	t.Fatalf("case %s records every candidate test", c.ID)
	return ""
}

// TestCostModel works a few encounters' charges out by hand (Nori et al.
// 2025, §2 and §3): $300 per physician visit, a run of consecutive questions
// and examinations ended by a diagnostic test request, plus each test's
// price from prices.csv.
func TestCostModel(t *testing.T) {
	cbc, ecg := price(t, "complete blood count"), price(t, "ecg")
	require.Equal(t, 7.77, cbc, "CLFS 2025 Q2, 85025")
	require.Equal(t, 13.91, ecg, "PFS 2025 Oct, 93000: 0.43 RVU × 32.3465")
	type turn struct {
		out  clinic.DoctorOutput
		cost float64
	}
	ask := func(q string) clinic.DoctorOutput { return clinic.DoctorOutput{Action: clinic.Ask, Question: q} }
	order := func(ts string) clinic.DoctorOutput {
		return clinic.DoctorOutput{Action: clinic.RequestTest, TestName: ts}
	}
	for _, tc := range []struct {
		name   string
		turns  []turn
		visits int
		total  float64
	}{
		{"three questions in one turn are one visit", []turn{{ask("When did it start? Any fever? Any past illnesses?"), 300}}, 1, 300},
		{"consecutive question turns are one visit", []turn{{ask("When did it start?"), 300}, {ask("Any fever?"), 0}, {ask("Do you smoke?"), 0}}, 1, 300},
		{"a test ends the visit: the next question begins another", []turn{{ask("When did it start?"), 300}, {order("complete blood count"), cbc},
			{ask("Any fever?"), 300}, {ask("Do you smoke?"), 0}}, 2, 600 + cbc},
		{"an examination is part of the visit", []turn{{ask("When did it start?"), 300}, {order("physical examination"), 0}, {ask("Any fever?"), 0}}, 1, 300},
		{"an examination first begins a visit; the tests of its turn end it", []turn{{order("physical examination; ecg"), 300 + ecg}, {ask("Any fever?"), 300}}, 2, 600 + ecg},
		{"a test done before is not charged again, and still ends the visit", []turn{{order("complete blood count"), cbc}, {ask("Any fever?"), 300},
			{order("full blood count"), 0}, {ask("Anything else?"), 300}}, 2, 600 + cbc},
		{"tests alone cost no visit", []turn{{order("complete blood count"), cbc}, {order("ecg"), ecg}}, 0, cbc + ecg},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := sampleCases(t)[0]
			env := start(t, c, sdSettings(), episode.BuiltinRoles(), nil)
			for i, tr := range tc.turns {
				require.InDelta(t, tr.cost, step(t, env, tr.out).Cost, 0.001, "turn %d", i)
			}
			step(t, env, clinic.DoctorOutput{Action: clinic.Finalize, Diagnosis: []string{c.Manager.Diagnosis.Name}})
			sc, err := sdbench.Benchmark{}.Score(context.Background(), bench.ScoreInput{Case: &c, Settings: sdSettings(), Env: env})
			require.NoError(t, err)
			require.InDelta(t, tc.total, sc.Cost, 0.001)
			require.Equal(t, float64(tc.visits), sc.Metrics["visits"])
			require.InDelta(t, float64(tc.visits)*300, sc.Metrics["visit_cost_usd"], 0.001)
			require.InDelta(t, tc.total-float64(tc.visits)*300, sc.Metrics["test_cost_usd"], 0.001)
			require.Equal(t, 5.0, sc.Metrics["likert"], "the reference diagnosis scores 5")
		})
	}
}

// price is a row's price in the shipped table.
func price(t *testing.T, name string) float64 {
	t.Helper()
	r, ok := sdbench.Prices.Row(name)
	require.True(t, ok, name)
	return r.USD()
}

// TestBudgets: under the budgeted variant an order is quoted first (its
// price and the spending so far, the paper's budget tracker) and performed
// when ordered again; what would pass the budget is refused, uncharged, and
// the refusal says why.
func TestBudgets(t *testing.T) {
	c := sampleCases(t)[1]
	ctHead := price(t, "ct head") // 3.25 RVU × 32.3465 = 105.13
	require.Equal(t, 105.13, ctHead)
	env := start(t, c, budgeted(sdSettings(), 400), episode.BuiltinRoles(), nil)
	require.Equal(t, 300.0, step(t, env, clinic.DoctorOutput{Action: clinic.Ask, Question: "When did it start?"}).Cost)
	ev := step(t, env, clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "ct head; ecg"})
	require.Equal(t, sdbench.Quoted, ev.Status)
	require.Zero(t, ev.Cost)
	require.Equal(t, []sdbench.Quote{{Test: "ct head", USD: ctHead}, {Test: "ecg", USD: 13.91}}, sdbench.ViewOf(env.View(nil, nil)).Quotes)
	require.Contains(t, ev.Reply, "ct head: quoted at $105.13 (spent so far $300 of $400)")
	ev = step(t, env, clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "ct head; ecg"})
	orders := sdbench.TurnOf(ev).Orders
	require.Equal(t, clinic.StatusOverBudget, orders[0].Status, "$300 + $105.13 passes $400")
	require.Equal(t, "refused: $105.13 would pass the budget of $400 ($300 spent)", orders[0].Result)
	require.Equal(t, clinic.StatusReturned, orders[1].Status, "$300 + $13.91 fits")
	require.Equal(t, 13.91, ev.Cost)
	v := env.View(nil, nil)
	require.Contains(t, v.Results, clinic.Result{Test: "ct head", Status: clinic.StatusOverBudget, Text: orders[0].Result}, "a refusal shows its reason")
	ev = step(t, env, clinic.DoctorOutput{Action: clinic.Ask, Question: "Any fever?"})
	require.Equal(t, clinic.StatusOverBudget, ev.Status, "the ECG ended the visit; a new one ($300) passes the budget")
	require.Zero(t, ev.Cost)
	require.Contains(t, ev.Reply, "a new visit costs $300")
	left, ok := sdbench.ViewOf(env.View(nil, nil)).LeftUSD()
	require.True(t, ok)
	require.Equal(t, 86.09, left, "400 − 313.91")
}

// TestNoTestCap: SDBench has no test cap (Nori et al. 2025, §3.3: "No
// limits were imposed on ... the number of tests ordered"), so a run's
// episode.max_tests, here 1, is neither shown to the doctor nor enforced:
// four tests in two turns are all performed and charged.
func TestNoTestCap(t *testing.T) {
	s := sdSettings()
	s.Episode.MaxTests = 1
	env := start(t, sampleCases(t)[0], s, episode.BuiltinRoles(), nil)
	require.Zero(t, env.View(nil, nil).MaxTests, "no cap shown")
	first := step(t, env, clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "complete blood count; ecg; ct head"})
	second := step(t, env, clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "chest x ray"})
	for _, ev := range []clinic.Event{first, second} {
		for _, o := range sdbench.TurnOf(ev).Orders {
			require.Equal(t, clinic.StatusReturned, o.Status, o.Test)
		}
	}
	require.Equal(t, 4, env.TestsDone())
	// 7.77 (85025) + 13.91 (93000) + 105.13 (70450) + 32.67 (71046) = 159.48
	require.InDelta(t, 159.48, first.Cost+second.Cost, 1e-9)
	require.Zero(t, env.View(nil, nil).MaxTests)
}

// TestVariants: instant answer diagnoses from the abstract alone, question
// only asks and diagnoses (§3.2); an action the variant does not have is a
// recorded invalid turn.
func TestVariants(t *testing.T) {
	c := sampleCases(t)[0]
	for _, tc := range []struct {
		variant string
		actions []string
		refused clinic.DoctorOutput
	}{
		{sdbench.InstantAnswer, []string{"FINALIZE"}, clinic.DoctorOutput{Action: clinic.Ask, Question: "When did it start?"}},
		{sdbench.QuestionOnly, []string{"ASK", "FINALIZE"}, clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "ecg"}},
	} {
		t.Run(tc.variant, func(t *testing.T) {
			s := withEpisode(sdSettings(), "variant", tc.variant)
			require.Equal(t, len(tc.actions), len(sdbench.Benchmark{}.Actions(s)))
			env := start(t, c, s, episode.BuiltinRoles(), nil)
			require.Equal(t, tc.actions, env.View(nil, nil).Actions)
			ev := step(t, env, tc.refused)
			require.Equal(t, clinic.StatusInvalid, ev.Status)
			require.Contains(t, ev.Reply, "variant "+tc.variant)
			require.Zero(t, ev.Cost)
		})
	}
}

// TestGatekeeperRevealsOnlyWhatIsAsked plays a battery of questions and
// orders on every sample case with the built-in gatekeeper: no reply holds
// a fact it did not reveal for the question, every revealed fact is on a
// topic the question asks about or shares its words, no order returns
// another test's recorded result, no reply names the diagnosis, and a
// request for the diagnosis is refused.
func TestGatekeeperRevealsOnlyWhatIsAsked(t *testing.T) {
	questions := []string{"When did it start?", "Any fever or weight loss?", "What medicines do you take?", "Any family history?",
		"Do you smoke or drink?", "Where exactly is it?", "What is the diagnosis?", "Anything else?"}
	for _, c := range sampleCases(t) {
		env := start(t, c, sdSettings(), episode.BuiltinRoles(), nil)
		for _, q := range questions {
			ev := step(t, env, clinic.DoctorOutput{Action: clinic.Ask, Question: q})
			a := sdbench.TurnOf(ev).Answers[0]
			if strings.Contains(q, "diagnosis") {
				require.True(t, a.Refused, "%s: %q", c.ID, q)
				continue
			}
			for _, f := range c.Patient.Facts {
				told := strings.Contains(textmatch.Normalize(a.Reply), textmatch.Normalize(f.Text))
				revealed := slices.Contains(a.Facts, f.ID)
				require.False(t, told && !revealed, "%s: %q told fact %s without revealing it", c.ID, q, f.ID)
				if revealed {
					topical := false
					for _, tp := range episode.QuestionTopics(q) {
						topical = topical || slices.Contains(f.Topics, tp)
					}
					worded := textmatch.Coverage(textmatch.Set(q), textmatch.Set(f.Text)) > 0
					require.True(t, topical || worded, "%s: fact %s (%v) told for %q, which does not ask for it", c.ID, f.ID, f.Topics, q)
				}
			}
			require.NotContains(t, strings.ToLower(a.Reply), strings.ToLower(c.Manager.Diagnosis.Name), "%s: %q", c.ID, q)
		}
		for _, test := range []string{"complete blood count", unrecorded(t, c), "serum unobtainium"} {
			ev := step(t, env, clinic.DoctorOutput{Action: clinic.RequestTest, TestName: test})
			o := sdbench.TurnOf(ev).Orders[0]
			for _, tv := range c.Exam.Tests {
				if tv.Name != o.Test {
					require.NotContains(t, o.Result, tv.Result, "%s: %s returned %s's result", c.ID, test, tv.Name)
				} else {
					require.Equal(t, tv.Result, o.Result, "a recorded result is returned verbatim")
					require.False(t, o.Synthetic)
				}
			}
			require.NotContains(t, strings.ToLower(o.Result), strings.ToLower(c.Manager.Diagnosis.Name))
		}
	}
}

// randomGatekeeper is a model-like gatekeeper: a new synthetic result on
// every call (a model at a temperature above 0), counting its calls.
type randomGatekeeper struct {
	calls *int
	seed  string
}

func (g randomGatekeeper) Answer(ctx context.Context, c *clinic.Case, q episode.PatientQuery) (episode.PatientReply, error) {
	*g.calls++
	return sdbench.Builtin{}.Answer(ctx, c, q)
}

func (g randomGatekeeper) Synthesize(_ context.Context, _ *clinic.Case, test, _ string) (string, error) {
	*g.calls++
	return fmt.Sprintf("%s: finding number %d from gatekeeper %s", test, *g.calls, g.seed), nil
}

// TestSyntheticResultSurvivesRebuild: a test the record does not hold gets
// a synthetic result from the model gatekeeper (roles.gatekeeper, through
// episode.Roles.Extra); the encounter is rebuilt from its events alone, as
// a restarted worker rebuilds it, with a fresh gatekeeper that would answer
// differently; the same test ordered again gives the same result, and the
// same question the same answer, without a gatekeeper call. (The engine's
// SIGKILL test runs this across a killed worker.)
func TestSyntheticResultSurvivesRebuild(t *testing.T) {
	c := sampleCases(t)[2]
	test := unrecorded(t, c)
	var first, second int
	roles := episode.BuiltinRoles()
	roles.Extra = map[string]any{sdbench.Role: randomGatekeeper{calls: &first, seed: "A"}}
	env := start(t, c, sdSettings(), roles, nil)
	ask := step(t, env, clinic.DoctorOutput{Action: clinic.Ask, Question: "Do you drink alcohol?"})
	ev := step(t, env, clinic.DoctorOutput{Action: clinic.RequestTest, TestName: test})
	o := sdbench.TurnOf(ev).Orders[0]
	require.True(t, o.Synthetic)
	require.Contains(t, o.Result, "gatekeeper A")
	require.Equal(t, 2, first)

	roles.Extra = map[string]any{sdbench.Role: randomGatekeeper{calls: &second, seed: "B"}}
	rebuilt := start(t, c, sdSettings(), roles, env.Events())
	require.Equal(t, env.View(nil, nil), rebuilt.View(nil, nil), "the rebuilt encounter shows the doctor the same")
	again := sdbench.TurnOf(step(t, rebuilt, clinic.DoctorOutput{Action: clinic.RequestTest, TestName: strings.ToUpper(test)})).Orders[0]
	require.Equal(t, o.Result, again.Result, "the same synthetic result for the same test")
	require.True(t, again.Synthetic)
	a2 := step(t, rebuilt, clinic.DoctorOutput{Action: clinic.Ask, Question: "Do you drink alcohol?"})
	require.Equal(t, ask.Reply, a2.Reply, "the same answer to the same question")
	require.Zero(t, second, "the rebuilt encounter never asked its gatekeeper")
}

// TestRubric: the built-in judge reads the shared name grade on the paper's
// five-point scale (clinevo's mapping of Table 1's anchors) and a diagnosis
// counts as correct at 4 or more (§2).
func TestRubric(t *testing.T) {
	c := sampleCases(t)[0]
	name := c.Manager.Diagnosis.Name
	for _, tc := range []struct {
		dx      string
		correct bool
	}{{name, true}, {"fractured femur", false}, {"", false}} {
		env := start(t, c, sdSettings(), episode.BuiltinRoles(), nil)
		if tc.dx != "" {
			step(t, env, clinic.DoctorOutput{Action: clinic.Finalize, Diagnosis: []string{tc.dx}})
		} else {
			for !env.Done() {
				step(t, env, clinic.DoctorOutput{Action: clinic.Ask, Question: "Anything else?"})
			}
		}
		sc, err := sdbench.Benchmark{}.Score(context.Background(), bench.ScoreInput{Case: &c, Settings: sdSettings(), Env: env})
		require.NoError(t, err)
		require.Equal(t, tc.correct, sc.Metrics["likert"] >= sdbench.CorrectAt, tc.dx)
		require.Equal(t, grader.Indicator(tc.correct), sc.Metrics["correct"], tc.dx)
		if tc.dx == name {
			require.Equal(t, 5.0, sc.Metrics["likert"])
		}
		if tc.dx == "" {
			require.Equal(t, 1.0, sc.Metrics["likert"], "a forced end without a working diagnosis grades 1")
		}
	}
	require.Equal(t, 4, sdbench.CorrectAt)
}

// TestRetiredOrderMode: settings recorded before the variants replaced
// episode.order_mode (403a52f) still read: direct is no_budget, the
// default; ask_before_order, which quoted every order first, is the
// budgeted variant, whose tracker quotes; a variant set beside it wins.
func TestRetiredOrderMode(t *testing.T) {
	for _, c := range []struct {
		ext  map[string]any
		want string
	}{
		{map[string]any{"order_mode": "direct"}, sdbench.NoBudget},
		{map[string]any{"order_mode": "ask_before_order"}, sdbench.Budgeted},
		{map[string]any{"order_mode": "ask_before_order", "variant": "question_only"}, sdbench.QuestionOnly},
	} {
		s := settings.Default()
		s.Benchmark, s.Episode.Ext = "sdbench", c.ext
		e, err := sdbench.EpisodeOf(s)
		require.NoError(t, err)
		require.Equal(t, c.want, e.Variant, "%v", c.ext)
	}
}
