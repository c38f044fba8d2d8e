package workflows_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/clinevo/clinevo/activities/acts"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/workflows"
)

// optimise runs a development phase with mocked steps: every candidate's
// per-case scores come from scores by development run, every child is one
// rule named after its run (ID and text); it returns the result and the runs played.
func optimise(t *testing.T, method string, gens, pop int, scores map[string][]float64) (contract.OptimizeResult, []string, map[string][]string) {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := newEnv(&s)
	env.OnActivity(acts.PlanCases.Name(), mock.Anything, "builtin:heldout", 2).Return(acts.StreamPlan{CaseIDs: []string{"d1", "d2"}, Conditions: []string{"a", "b"}}, nil)
	var played []string
	env.OnWorkflow(workflows.EvaluationWorkflow, mock.Anything, mock.Anything).Return(func(_ workflow.Context, e contract.EvalSpec) (contract.EvalResult, error) {
		require.Equal(t, contract.KindDev, e.Kind)
		require.Equal(t, []string{"d1", "d2"}, e.CaseIDs)
		require.Empty(t, e.MemoryRuns, "development episodes read no memory")
		played = append(played, e.RunID)
		return contract.EvalResult{RunID: e.RunID}, nil
	})
	env.OnActivity(acts.DevScores.Name(), mock.Anything, mock.Anything).Return(func(_ context.Context, run string) ([]float64, error) {
		return scores[run], nil
	})
	pools := map[string][]string{} // the pool each child was bred from, by child
	env.OnActivity(acts.Breed.Name(), mock.Anything, mock.Anything).Return(func(_ context.Context, in acts.BreedInput) ([]clinic.Rule, error) {
		run := contract.DevRunID(in.Run, in.Gen, in.Slot)
		for _, c := range in.Pool {
			pools[run] = append(pools[run], c.Run)
		}
		return []clinic.Rule{{ID: run, Text: "ASK onset (" + run + ")"}}, nil
	})
	set := settings.Default()
	set.Evolver.Method = method
	set.Evolver.Dev = settings.Dev{Cases: 2, Generations: gens, Population: pop, Merges: 1}
	env.ExecuteWorkflow(workflows.OptimizeWorkflow, contract.OptimizeSpec{RunID: "r", Corpus: "builtin:heldout", Pass: 1, Settings: set})
	require.NoError(t, env.GetWorkflowError())
	var res contract.OptimizeResult
	require.NoError(t, env.GetWorkflowResult(&res))
	return res, played, pools
}

// GEPA keeps a child only when it beats its parent; the best kept candidate
// is frozen.
func TestOptimizeGEPAKeepsChildrenThatImprove(t *testing.T) {
	res, played, pools := optimise(t, settings.MethodGEPA, 1, 2, map[string][]float64{
		"r/dev/g00-c00": {0.5, 0.5}, // the seed
		"r/dev/g01-c00": {0.9, 0.0}, // 0.9 < 1.0: discarded
		"r/dev/g01-c01": {0.9, 0.3}, // 1.2 > 1.0: kept, and best
	})
	require.Equal(t, []string{"r/dev/g00-c00", "r/dev/g01-c00", "r/dev/g01-c01"}, played, "every candidate is played on the development cases")
	require.Equal(t, 3, res.Candidates)
	require.Equal(t, []string{"r/dev/g00-c00"}, pools["r/dev/g01-c01"], "the discarded child is not a parent")
	require.Equal(t, "r/dev/g01-c01", res.Best)
	require.InDelta(t, 0.6, res.Mean, 1e-12)
	require.Equal(t, []clinic.Rule{{ID: "r/dev/g01-c01", Text: "ASK onset (r/dev/g01-c01)"}}, res.RuleBook)
}

// EvoPrompt keeps the best Population of parents and children after every
// generation (EvoPrompt's GA): a generation-1 child that loses to the seed is gone
// before generation 2.
func TestOptimizeEvoPromptKeepsTheBestPopulation(t *testing.T) {
	res, _, pools := optimise(t, settings.MethodEvoPrompt, 2, 1, map[string][]float64{
		"r/dev/g00-c00": {0.5, 0.5},
		"r/dev/g01-c00": {0.1, 0.1},
		"r/dev/g02-c00": {0.4, 0.4},
	})
	require.Equal(t, 3, res.Candidates)
	require.Equal(t, []string{"r/dev/g00-c00"}, pools["r/dev/g02-c00"], "generation 2 breeds from the survivors only")
	require.Equal(t, "r/dev/g00-c00", res.Best, "the seed survives both generations")
	require.Empty(t, res.RuleBook)
}

// GEPA's merge step: two Pareto-front children of the seed, each better on
// one development case, are merged component by component (each brings
// the rule it added to the seed) and the merged book, played as one more
// candidate of the generation, is kept when it does at least as well as the
// better of the two. (For run r, slot 1's parent draw is c00, slot 2's the
// seed.)
func TestOptimizeGEPAMergesTwoParetoCandidates(t *testing.T) {
	res, played, _ := optimise(t, settings.MethodGEPA, 1, 3, map[string][]float64{
		"r/dev/g00-c00": {0.5, 0.5}, // the seed, no rules
		"r/dev/g01-c00": {0.9, 0.3}, // kept: best on case 1
		"r/dev/g01-c01": {0.1, 0.1}, // discarded
		"r/dev/g01-c02": {0.3, 0.9}, // kept: best on case 2, a child of the seed
		"r/dev/g01-c03": {0.9, 0.9}, // the merge of c00 and c02 over the seed
	})
	require.Equal(t, []string{"r/dev/g00-c00", "r/dev/g01-c00", "r/dev/g01-c01", "r/dev/g01-c02", "r/dev/g01-c03"}, played,
		"the merged book is played after the generation's children")
	require.Equal(t, 5, res.Candidates)
	require.Equal(t, "r/dev/g01-c03", res.Best)
	require.Equal(t, []clinic.Rule{{ID: "r/dev/g01-c00", Text: "ASK onset (r/dev/g01-c00)"}, {ID: "r/dev/g01-c02", Text: "ASK onset (r/dev/g01-c02)"}}, res.RuleBook,
		"the merge holds the rule each parent added to their common ancestor")
}

// A merge that does worse than the better of the two it merges is not kept.
func TestOptimizeGEPADiscardsAWorseMerge(t *testing.T) {
	res, played, _ := optimise(t, settings.MethodGEPA, 1, 3, map[string][]float64{
		"r/dev/g00-c00": {0.5, 0.5},
		"r/dev/g01-c00": {0.9, 0.3},
		"r/dev/g01-c01": {0.1, 0.1},
		"r/dev/g01-c02": {0.3, 0.9},
		"r/dev/g01-c03": {0.6, 0.5}, // 1.1 < 1.2
	})
	require.Len(t, played, 5)
	require.Equal(t, "r/dev/g01-c00", res.Best, "the merge is discarded; the earlier of the two equal parents is best")
}
