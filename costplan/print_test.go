package costplan_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/costplan"
	"github.com/clinevo/clinevo/settings"
)

// TestOverAndBudgetLine: the plan's totals against an experiment's cap:
// 12.5 USD and 9000+1000+500 = 10500 tokens.
func TestOverAndBudgetLine(t *testing.T) {
	p := costplan.Plan{CostUSD: 12.5, Total: []costplan.Role{{Role: "doctor", PromptTokens: 9000, CompletionTokens: 1000}, {Role: "judge", PromptTokens: 500}}}
	require.Equal(t, []string{"usd"}, costplan.Over(p, settings.Budget{USD: 10, Tokens: 20000}))
	require.Equal(t, []string{"usd", "tokens"}, costplan.Over(p, settings.Budget{USD: 12.5, Tokens: 10500}))
	require.Empty(t, costplan.Over(p, settings.Budget{USD: 13, Tokens: 10501}))
	require.Equal(t, "experiment budget: model USD 10, tokens 0 (0: no cap): the plan reaches it (usd); the streams will pause there (paused: experiment budget)",
		costplan.BudgetLine(p, settings.Budget{USD: 10}))
	require.Equal(t, "experiment budget: model USD 13, tokens 10501 (0: no cap): the plan is within it",
		costplan.BudgetLine(p, settings.Budget{USD: 13, Tokens: 10501}))
}

// TestEstimateWrite: the plan's table alone before the experiment ran, the
// use beside each figure once it has, and the cap's line under it. The line
// of one empty cell between the tables ends the columns after the first:
// the role table aligns on its own.
func TestEstimateWrite(t *testing.T) {
	plan := costplan.Plan{Experiment: "x", CostUSD: 1.5, WallSeconds: 3720,
		Conditions: []costplan.Condition{{Name: "E1", Episodes: 100, EvalEpisodes: 75, WallSeconds: 3720}},
		Total:      []costplan.Role{{Role: "doctor", Model: "m", Calls: 800, PromptTokens: 12000, CompletionTokens: 1600, CostUSD: 1.5, Source: "guess"}}}
	used := costplan.Plan{Experiment: "x", CostUSD: 0.25, WallSeconds: 42,
		Conditions: []costplan.Condition{{Name: "E1", Episodes: 10, WallSeconds: 42}},
		Total:      []costplan.Role{{Role: "doctor", Model: "m", Calls: 80, PromptTokens: 1200, CompletionTokens: 160, CostUSD: 0.25, Source: "used"}}}
	for _, c := range []struct {
		name string
		e    costplan.Estimate
		want string
	}{
		{"plan", costplan.Estimate{Plan: plan}, "" +
			"experiment x: planned model USD 1.50, wall 1h02m\n" +
			"CONDITION  EPISODES  EVAL EPISODES  WALL   \n" +
			"E1         100       75             1h02m  \n" +
			"           \n" +
			"ROLE       MODEL  CALLS  IN TOKENS  OUT TOKENS  MODEL USD  SOURCE  \n" +
			"doctor     m      800    12000      1600        1.50       guess   \n"},
		{"used and cap", costplan.Estimate{Plan: plan, Used: &used, Budget: &costplan.BudgetCheck{USD: 1}}, "" +
			"experiment x: planned model USD 1.50, wall 1h02m; used model USD 0.25, wall 42s\n" +
			"CONDITION  EPISODES  USED  EVAL EPISODES  USED  WALL   USED  \n" +
			"E1         100       10    75             0     1h02m  42s   \n" +
			"           \n" +
			"ROLE       MODEL  CALLS  USED  IN TOKENS  USED  OUT TOKENS  USED  MODEL USD  USED  SOURCE  \n" +
			"doctor     m      800    80    12000      1200  1600        160   1.50       0.25  guess   \n" +
			"experiment budget: model USD 1, tokens 0 (0: no cap): the plan reaches it (usd); the streams will pause there (paused: experiment budget)\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, c.e.Write(&b))
			require.Equal(t, c.want, b.String())
		})
	}
}

// TestEstimateJSON: --json's keys: plan always, used and budget only when
// there is a use and a cap.
func TestEstimateJSON(t *testing.T) {
	b, err := json.Marshal(costplan.Estimate{Plan: costplan.Plan{Experiment: "x"}})
	require.NoError(t, err)
	require.JSONEq(t, `{"plan":{"experiment":"x","conditions":null,"total":null,"cost_usd":0,"wall_seconds":0}}`, string(b))
	b, err = json.Marshal(costplan.Estimate{Budget: &costplan.BudgetCheck{Over: []string{}, USD: 5}})
	require.NoError(t, err)
	require.Contains(t, string(b), `{"budget":{"over":[],"tokens":0,"usd":5},"plan":`)
}
