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

// TestCostModel works a few encounters' costs out by hand (Nori et al.
// 2025, SDBench: a visit per question turn, however many questions it holds,
// plus each test's table price; examinations are part of the visit).
func TestCostModel(t *testing.T) {
	c := sampleCases(t)[0]
	env := start(t, c, sdSettings(), episode.BuiltinRoles(), nil)
	ev := step(t, env, clinic.DoctorOutput{Action: clinic.Ask, Question: "When did it start? Any fever? Any past illnesses?"})
	require.Len(t, sdbench.TurnOf(ev).Answers, 3, "three questions in one turn")
	require.Equal(t, 300.0, ev.Cost, "one visit: $300")
	ev = step(t, env, clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "physical examination; complete blood count"})
	require.Equal(t, 45.0, ev.Cost, "examination free, CBC $45 (CPT 85025)")
	ev = step(t, env, clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "complete blood count"})
	require.Equal(t, clinic.StatusDuplicate, ev.Status)
	require.Zero(t, ev.Cost, "a test done before is not charged again")
	step(t, env, clinic.DoctorOutput{Action: clinic.Ask, Question: "Do you smoke?"})
	step(t, env, clinic.DoctorOutput{Action: clinic.Finalize, Diagnosis: []string{c.Manager.Diagnosis.Name}})
	sc, err := sdbench.Benchmark{}.Score(context.Background(), bench.ScoreInput{Case: &c, Settings: sdSettings(), Env: env})
	require.NoError(t, err)
	// 2 visits × $300 + $45 = $645; the reference diagnosis scores 5, correct.
	require.Equal(t, 645.0, sc.Cost)
	require.Equal(t, 2.0, sc.Metrics["visits"])
	require.Equal(t, 600.0, sc.Metrics["visit_cost_usd"])
	require.Equal(t, 45.0, sc.Metrics["test_cost_usd"])
	require.Equal(t, 5.0, sc.Metrics["likert"])
	require.Equal(t, 1.0, sc.Metrics["correct"])
	require.Equal(t, 1, sc.E)
}

// TestBudgets: a cost cap refuses what would pass it, uncharged; under
// ask_before_order a test is quoted first and performed when ordered again.
func TestBudgets(t *testing.T) {
	c := sampleCases(t)[1]
	capped := withEpisode(sdSettings(), "cost_cap", 400.0)
	env := start(t, c, capped, episode.BuiltinRoles(), nil)
	require.Equal(t, 300.0, step(t, env, clinic.DoctorOutput{Action: clinic.Ask, Question: "When did it start?"}).Cost)
	ev := step(t, env, clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "ct head; complete blood count"})
	orders := sdbench.TurnOf(ev).Orders
	require.Equal(t, clinic.StatusOverBudget, orders[0].Status, "$1300 would pass the $400 cap")
	require.Equal(t, clinic.StatusReturned, orders[1].Status, "$45 fits")
	require.Equal(t, 45.0, ev.Cost)
	ev = step(t, env, clinic.DoctorOutput{Action: clinic.Ask, Question: "Any fever?"})
	require.Equal(t, clinic.StatusOverBudget, ev.Status, "$345 + a $300 visit passes $400")
	require.Zero(t, ev.Cost)
	require.Equal(t, 345.0, sdbench.ViewOf(env.View(nil, nil)).SpentUSD)

	ask := withEpisode(sdSettings(), "order_mode", sdbench.AskBeforeOrder)
	env = start(t, c, ask, episode.BuiltinRoles(), nil)
	ev = step(t, env, clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "ecg"})
	require.Equal(t, sdbench.Quoted, ev.Status)
	require.Zero(t, ev.Cost)
	require.Equal(t, []sdbench.Quote{{Test: "ecg", USD: 120}}, sdbench.ViewOf(env.View(nil, nil)).Quotes)
	ev = step(t, env, clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "ECG"})
	require.Equal(t, clinic.StatusReturned, ev.Status)
	require.Equal(t, 120.0, ev.Cost, "ECG $120 (CPT 93000), once quoted")
	require.Empty(t, sdbench.ViewOf(env.View(nil, nil)).Quotes)
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
		env := start(t, c, withEpisode(sdSettings(), "cost_cap", 0.0), episode.BuiltinRoles(), nil)
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
