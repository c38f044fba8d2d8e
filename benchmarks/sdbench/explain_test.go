package sdbench_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/sdbench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
)

// TestExplain checks the episode page's explanation against stored scores,
// and that it flags scores that do not add up.
func TestExplain(t *testing.T) {
	sc := clinic.Scores{Cost: 645, Metrics: map[string]float64{"likert": 4, "correct": 1, "visits": 2, "visit_cost_usd": 600, "test_cost_usd": 45}}
	v := sdbench.Benchmark{}.Explain(sc, nil, sdSettings())
	require.Contains(t, v.Check, "hold")
	require.Contains(t, v.Lines[2].How, "2 × 300 + 45.00")
	sc.Cost = 700
	require.Contains(t, sdbench.Benchmark{}.Explain(sc, nil, sdSettings()).Check, "is not visits")
	sc.Cost, sc.Metrics["correct"] = 645, 0
	require.Contains(t, sdbench.Benchmark{}.Explain(sc, nil, sdSettings()).Check, "does not follow")
}

// TestDescribe: a trace notes what each question or test turn was charged
// and why.
func TestDescribe(t *testing.T) {
	c := sampleCases(t)[0]
	env := start(t, c, sdSettings(), episode.BuiltinRoles(), nil)
	notes := []string{}
	for _, o := range []clinic.DoctorOutput{
		{Action: clinic.Ask, Question: "When did it start?"},
		{Action: clinic.Ask, Question: "Any fever?"},
		{Action: clinic.RequestTest, TestName: "physical examination; complete blood count; serum unobtainium"},
	} {
		notes = append(notes, sdbench.Benchmark{}.Describe(step(t, env, o)).Note)
	}
	// The fallback of an order catalog.Infer puts in no category: the median price of the table's rows it puts in none.
	require.Equal(t, 18.4, sdbench.Prices.Price("serum unobtainium").USD)
	require.Equal(t, []string{
		"charged $300: a new visit $300",
		"charged $0: within the visit",
		"charged $26.17: physical examination within the visit; complete blood count $7.77 [85025]; serum unobtainium $18.4 (not in the price table: its category's median); the visit ends", // 7.77 + 18.40
	}, notes)
}
