package costplan_test

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/medevoeval"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/costplan"
	"github.com/clinevo/clinevo/experiments"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/settings"
)

// TestCount: the episodes of a condition, worked out by hand.
func TestCount(t *testing.T) {
	stream := contract.ConditionSpec{Kind: contract.KindStream}
	// 100 cases in stages of 25: K = 4.
	require.Equal(t, costplan.Counts{Learn: 100}, costplan.Count(stream, 100, 25))
	stream.StageEval = true
	require.Equal(t, costplan.Counts{Learn: 100, Eval: 100}, costplan.Count(stream, 100, 25))
	// final retention replays stages 1..3 once: 75.
	stream.Retention = contract.RetentionFinal
	require.Equal(t, costplan.Counts{Learn: 100, Eval: 175}, costplan.Count(stream, 100, 25))
	// matrix: stage 1 under k = 2, 3, 4, stage 2 under 3, 4, stage 3 under 4:
	// (3 + 2 + 1) · 25 = 150.
	stream.Retention, stream.StageEval = contract.RetentionMatrix, false
	require.Equal(t, costplan.Counts{Learn: 100, Eval: 150}, costplan.Count(stream, 100, 25))
	// A short last stage: 60 cases in 25s, K = 3, final replays 25 + 25.
	stream.Retention = contract.RetentionFinal
	require.Equal(t, costplan.Counts{Learn: 60, Eval: 50}, costplan.Count(stream, 60, 25))
	require.Equal(t, costplan.Counts{Eval: 50}, costplan.Count(contract.ConditionSpec{Kind: contract.KindHeldOut}, 50, 25))
}

// modelDoctor is the default settings with a model doctor on m1, priced 1
// and 4 USD per million prompt and completion tokens.
func modelDoctor(t *testing.T) settings.Settings {
	base := defaultSet(t).DefaultSettings()
	base.ModelPrices = []settings.ModelPrice{{Model: "m1", Prompt: 1, Completion: 4}}
	doc := base.Roles["doctor"]
	doc.Backend, doc.BaseURL, doc.Model, doc.MaxTokens = settings.OpenAI, "http://127.0.0.1:1/v1", "m1", 1024
	base.Roles["doctor"] = doc
	return base
}

// TestPlanQuick: the quick experiment's episodes by hand, and a model doctor
// priced from model_prices with no history: Tmax calls an episode (a bound)
// and the guessed tokens.
func TestPlanQuick(t *testing.T) {
	base := modelDoctor(t)
	spec, err := experiments.Load("../experiments/quick.yaml", base, defaultSet(t))
	require.NoError(t, err)
	p, err := costplan.Experiment(defaultSet(t), spec, costplan.History{})
	require.NoError(t, err)
	got := map[string][2]int{}
	for _, c := range p.Conditions {
		got[c.Name] = [2]int{c.Episodes, c.EvalEpisodes}
	}
	// E1: 100 learning, stage evaluations 100, final replays 75.
	require.Equal(t, map[string][2]int{"E0": {100, 0}, "E1": {100, 175}, "E2": {100, 0}, "H0": {0, 50}, "H3": {0, 50}}, got)
	d := p.Total[0]
	require.Equal(t, "doctor", d.Role)
	// 575 episodes at Tmax 10: 5750 calls, 1500 + 200 tokens each.
	require.InDelta(t, 5750, d.Calls, 1e-9)
	require.InDelta(t, 5750*1500, d.PromptTokens, 1e-6)
	require.InDelta(t, 5750*(1500*1.0+200*4.0)/1e6, d.CostUSD, 1e-9)
	require.Equal(t, "bound+guess", d.Source)
}

// TestPlanFromHistory: recorded means replace the bounds, and Used reads
// the same records back: a plan from a run's own records is its use.
func TestPlanFromHistory(t *testing.T) {
	spec := contract.ExperimentSpec{Name: "x", Corpus: "builtin:stream@7", Limit: 4, StageSize: 2, Base: defaultSet(t).DefaultSettings(),
		Conditions: []contract.ConditionSpec{{Name: "E0", Kind: contract.KindStream, Memory: contract.MemoryDisabled}}}
	var recs []results.Record
	for i := range 4 {
		actions := []string{"ASK a -> answered", "FINALIZE -> ok"}
		if i%2 == 1 {
			actions = []string{"ASK a -> answered", "ASK b -> answered", "REQUEST_TEST ecg -> returned", "FINALIZE -> ok"}
		}
		recs = append(recs, results.Record{Kind: string(contract.KindStream), Turns: len(actions), Actions: actions})
	}
	p, err := costplan.Experiment(defaultSet(t), spec, costplan.NewHistory(recs))
	require.NoError(t, err)
	used := costplan.Used(defaultSet(t), spec, map[string][]results.Record{"E0": recs})
	byRole := func(p costplan.Plan) map[string]float64 {
		m := map[string]float64{}
		for _, r := range p.Total {
			m[r.Role] = r.Calls
		}
		return m
	}
	// Turns 2 and 4: 3 a case, 12 doctor calls; ASKs 1 and 2: 6; one test.
	want := map[string]float64{"doctor": 12, "patient": 6, "exam": 2, "consultant": 0, "judge": 4, "grader": 4, "evolver": 4, "embeddings": 12}
	require.Equal(t, want, byRole(p))
	require.Equal(t, want, byRole(used))
}

// defaultSet is the default benchmark alone (benchmarks/all plans every
// shipped spec against the build's whole set).
func defaultSet(t testing.TB) bench.Set {
	set, err := bench.NewSet(medevoeval.Benchmark{})
	require.NoError(t, err)
	return set
}

// gated is a benchmark that plays the shared environment with a role of its
// own beside the shared ones (as SDBench's gatekeeper).
type gated struct{ medevoeval.Benchmark }

func (gated) Name() string    { return "gated" }
func (gated) Roles() []string { return []string{"gatekeeper"} }

// TestPlanCostsTheRolesABenchmarkAdds: a condition whose benchmark adds a
// role on a model has that role's calls and cost in its plan (bench.RunRoles),
// bounded by one call a non-final turn: Tmax 10, 9 calls an episode, 4
// episodes, 36 calls at the guessed 1500 + 200 tokens, priced 1 and 4 USD a
// million: 36 × (1500·1 + 200·4)/1e6 = 0.0828 USD. A condition of a benchmark
// without it plans no such row.
func TestPlanCostsTheRolesABenchmarkAdds(t *testing.T) {
	set := benchtest.SetOf(t, medevoeval.Benchmark{}, gated{})
	base := set.DefaultSettings()
	base.ModelPrices = []settings.ModelPrice{{Model: "m1", Prompt: 1, Completion: 4}}
	base.Roles["gatekeeper"] = settings.Role{Backend: settings.OpenAI, BaseURL: "http://127.0.0.1:1/v1", Model: "m1", MaxTokens: 1024}
	spec := contract.ExperimentSpec{Name: "g", Corpus: "builtin:stream@7", HeldOut: "builtin:heldout@7", HeldOutLimit: 4, Base: base,
		Conditions: []contract.ConditionSpec{{Name: "G", Kind: contract.KindHeldOut, Settings: settings.Overrides{"profile": "gated"}},
			{Name: "M", Kind: contract.KindHeldOut}}}
	require.NoError(t, spec.Validate())
	p, err := costplan.Experiment(set, spec, costplan.History{})
	require.NoError(t, err)
	roles := func(c costplan.Condition) map[string]costplan.Role {
		m := map[string]costplan.Role{}
		for _, r := range c.Roles {
			m[r.Role] = r
		}
		return m
	}
	g := roles(p.Conditions[0])
	require.Contains(t, g, "gatekeeper")
	require.InDelta(t, 36, g["gatekeeper"].Calls, 1e-9)
	require.Equal(t, "m1", g["gatekeeper"].Model)
	require.InDelta(t, 36*(1500*1.0+200*4.0)/1e6, g["gatekeeper"].CostUSD, 1e-12)
	require.NotContains(t, roles(p.Conditions[1]), "gatekeeper")
}

// TestPlanGrowsLinearlyWithOrderings: quick.yaml over 3 orderings repeats
// E0, E1, E2 and H3 (525 episodes each time: 100 + 275 + 100 + 50) and
// plays H0 once (50): 3·525 + 50 = 1625 episodes, the model use in
// proportion, and the printed line says so.
func TestPlanGrowsLinearlyWithOrderings(t *testing.T) {
	base := modelDoctor(t)
	raw, err := os.ReadFile("../experiments/quick.yaml")
	require.NoError(t, err)
	spec, err := experiments.Parse("quick3.yaml", append(raw, "orderings: 3\n"...), base, defaultSet(t))
	require.NoError(t, err)
	p, err := costplan.Experiment(defaultSet(t), spec, costplan.History{})
	require.NoError(t, err)
	o := p.Orderings
	require.NotNil(t, o)
	require.Equal(t, []string{"E0", "E1", "E2", "H3"}, o.Repeated)
	require.Equal(t, [2]int{3 * 525, 3*525 + 50}, [2]int{o.Episodes, o.Total})
	require.InDelta(t, 16250, p.Total[0].Calls, 1e-9, "1625 episodes at Tmax 10")
	require.InDelta(t, p.CostUSD*1575/1625, o.CostUSD, 1e-9)
	var out bytes.Buffer
	require.NoError(t, costplan.Write(&out, p, nil))
	require.Contains(t, out.String(), "orderings 3: E0, E1, E2, H3 played 3 times each: 1575 of the 1625 episodes (records stored)")
}

// TestPlanGrowsLinearlyWithEpochs: epochs 3 on the quick experiment plays
// H0 and H3 (50 cases each) 3 times: 150 episodes each, and every figure of
// their plan (calls, tokens, USD, wall) 3 times the one-epoch plan's; the
// streams' plans do not change, and the printed line says so.
func TestPlanGrowsLinearlyWithEpochs(t *testing.T) {
	base := modelDoctor(t)
	raw, err := os.ReadFile("../experiments/quick.yaml")
	require.NoError(t, err)
	plan := func(extra string) costplan.Plan {
		spec, err := experiments.Parse("quick.yaml", append(slices.Clone(raw), extra...), base, defaultSet(t))
		require.NoError(t, err)
		p, err := costplan.Experiment(defaultSet(t), spec, costplan.History{})
		require.NoError(t, err)
		return p
	}
	one, three := plan(""), plan("epochs: 3\n")
	require.Nil(t, one.Epochs)
	require.Len(t, three.Conditions, len(one.Conditions))
	held := 0.0
	for i, c := range three.Conditions {
		o := one.Conditions[i]
		k := 1.0
		if c.Kind == string(contract.KindHeldOut) {
			k = 3
			require.Equal(t, 150, c.EvalEpisodes, c.Name)
			for _, r := range o.Roles {
				held += r.CostUSD
			}
		}
		require.Equal(t, o.Episodes, c.Episodes, c.Name)
		require.Equal(t, int(k)*o.EvalEpisodes, c.EvalEpisodes, c.Name)
		require.InDelta(t, k*o.WallSeconds, c.WallSeconds, 1e-9, c.Name)
		for j, r := range c.Roles {
			require.InDelta(t, k*o.Roles[j].Calls, r.Calls, 1e-9, "%s %s", c.Name, r.Role)
			require.InDelta(t, k*o.Roles[j].PromptTokens, r.PromptTokens, 1e-6, "%s %s", c.Name, r.Role)
			require.InDelta(t, k*o.Roles[j].CompletionTokens, r.CompletionTokens, 1e-6, "%s %s", c.Name, r.Role)
			require.InDelta(t, k*o.Roles[j].CostUSD, r.CostUSD, 1e-9, "%s %s", c.Name, r.Role)
		}
	}
	// 575 episodes with one epoch; 2·50 more for each of H0 and H3: 775.
	require.Equal(t, &costplan.EpochsPlan{K: []int{3, 3}, Conditions: []string{"H0", "H3"}, Episodes: 300, Total: 775, CostUSD: three.Epochs.CostUSD}, three.Epochs)
	require.InDelta(t, 3*held, three.Epochs.CostUSD, 1e-9)
	require.InDelta(t, one.CostUSD+2*held, three.CostUSD, 1e-9)
	var out bytes.Buffer
	require.NoError(t, costplan.Write(&out, three, nil))
	require.Contains(t, out.String(), "epochs (H0 3, H3 3): each held-out case played that many times: 300 of the 775 episodes (records stored)")
}

// TestPlanWallIsNeverLessThanTheMachinesWork: an experiment's planned wall
// time is its longest chain of dependent conditions, each episode its
// built-in calls at GuessBuiltinCallSeconds (it planned 11 s for the quick
// experiment, which took 66 s on two cores), and never less than its
// episodes' processor time over the machine's cores, which conditions that
// run at once share; the printed plan says when that bound is the one.
func TestPlanWallIsNeverLessThanTheMachinesWork(t *testing.T) {
	spec, err := experiments.Load("../experiments/quick.yaml", defaultSet(t).DefaultSettings(), defaultSet(t))
	require.NoError(t, err)
	// A learning episode's bounds: doctor 10, patient 9, exam 3, judge,
	// grader and evolver 1 each, embeddings 10: 35 calls, 0.455 s; an
	// evaluation episode 33 calls, 0.429 s, eight at once. E1 100 × 0.455 +
	// 175 × 0.429 / 8 = 54.884, then E2 45.5, then H3 50 × 0.429 / 8 =
	// 2.681: 103.066 s. Its 575 episodes' processor time, 575 × 0.13 =
	// 74.75 s, is less even on one core.
	for _, cores := range []int{1, 2, runtime.NumCPU()} {
		p, err := costplan.Experiment(defaultSet(t), spec, costplan.History{}.OnCores(cores))
		require.NoError(t, err)
		require.InDelta(t, 103.066, p.ChainSeconds, 1e-3)
		require.InDelta(t, 74.75, p.CPUSeconds, 1e-9)
		require.Equal(t, p.ChainSeconds, p.WallSeconds)
	}
	e, err := costplan.EstimateOf(defaultSet(t), spec, nil) // the CLI's plan
	require.NoError(t, err)
	require.InDelta(t, 103.066, e.Plan.WallSeconds, 1e-3)

	// Eight independent streams of 100 episodes: a chain of 45.5 s, and
	// 8 × 100 × 0.13 = 104 s of processor time, 52 s on two cores.
	var wide contract.ExperimentSpec
	wide.Name, wide.Corpus, wide.Limit, wide.StageSize, wide.Settings = "wide", spec.Corpus, 100, 25, spec.Settings
	for i := range 8 {
		wide.Conditions = append(wide.Conditions, contract.ConditionSpec{Name: fmt.Sprintf("S%d", i), Kind: contract.KindStream, Memory: contract.MemoryDisabled})
	}
	for cores, wall := range map[int]float64{1: 104, 2: 52, 64: 45.5} {
		p, err := costplan.Experiment(defaultSet(t), wide, costplan.History{}.OnCores(cores))
		require.NoError(t, err)
		require.InDelta(t, 45.5, p.ChainSeconds, 1e-9)
		require.InDelta(t, wall, p.WallSeconds, 1e-9, "%d cores", cores)
		var out strings.Builder
		require.NoError(t, costplan.Write(&out, p, nil))
		if cores == 64 {
			require.NotContains(t, out.String(), "processor time")
		} else {
			require.Contains(t, out.String(), fmt.Sprintf("\nplanned wall: the episodes' processor time, 1m44s, over %d cores (more than the longest chain of conditions, 46s)\n", cores))
		}
	}
}

// TestPlanCountsMaTTSAttempts: under MaTTS (evolver.matts.k 3) every role
// of a stream episode but the evolver's plays each case three times, so a
// model doctor's calls, tokens and USD are three times those of the same
// stream without it; the evolver learns once a case either way.
func TestPlanCountsMaTTSAttempts(t *testing.T) {
	base := modelDoctor(t)
	spec, err := experiments.Parse("m.yaml", []byte(`name: m
corpus: builtin:stream@7
limit: 10
stage_size: 10
conditions:
  - {name: A, kind: stream, memory: empty, settings: {evolver: {method: reasoningbank, rule_budget: 0}}}
  - {name: B, kind: stream, memory: empty, settings: {evolver: {method: reasoningbank, rule_budget: 0, matts: {k: 3}}}}
`), base, defaultSet(t))
	require.NoError(t, err)
	p, err := costplan.Experiment(defaultSet(t), spec, costplan.History{})
	require.NoError(t, err)
	a, b := p.Conditions[0], p.Conditions[1]
	require.Zero(t, a.Attempts)
	require.Equal(t, 3, b.Attempts)
	require.Equal(t, a.Episodes, b.Episodes, "the stream's cases are the same")
	for j, r := range b.Roles {
		k := 3.0
		if r.Role == "evolver" {
			k = 1
		}
		require.InDelta(t, k*a.Roles[j].Calls, r.Calls, 1e-9, r.Role)
		require.InDelta(t, k*a.Roles[j].CostUSD, r.CostUSD, 1e-9, r.Role)
	}
	var out bytes.Buffer
	require.NoError(t, costplan.Write(&out, p, nil))
	require.Contains(t, out.String(), "MaTTS attempts (B 3): each stream case played that many times at once")
}
