package medinquire_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/medinquire"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/view"
)

func lineOf(v view.ScoreView, name string) view.ScoreLine {
	for _, l := range v.Lines {
		if l.Name == name {
			return l
		}
	}
	return view.ScoreLine{}
}

// EvoClinician §3.6 by hand: grade 75, 8 turns at 5 USD and 30 USD of tests.
func TestExplain(t *testing.T) {
	set := settings.Default()
	set.Benchmark = medinquire.Name
	b := medinquire.Benchmark{}
	v := b.Explain(clinic.Scores{Grade: 75, S: 0.75, Cost: 70, T: 8}, &clinic.Case{}, set)
	require.Contains(t, lineOf(v, "C").How, "= 5·8 + 30.00 (EvoClinician §3.6)")
	require.Contains(t, lineOf(v, "S").How, "S = grade/100 = 75/100")
	require.Equal(t, "–", lineOf(v, "U").Value)
	require.False(t, v.KeyPoints)
	require.Contains(t, v.Check, "hold for the stored numbers")
	v = b.Explain(clinic.Scores{Grade: 75, S: 0.7, Cost: 70, T: 8}, &clinic.Case{}, set)
	require.Contains(t, v.Check, "is not grade/100 = 0.7500")
}
