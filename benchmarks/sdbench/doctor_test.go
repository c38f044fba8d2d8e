package sdbench_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/benchmarks/sdbench"
	"github.com/clinevo/clinevo/episode"
)

// TestBuiltinDoctorOrdersTests plays the built-in doctor with no memory on
// the sample cases: it orders tests in every one (issue 35: under sdbench
// it ordered none in 50 real cases, since only memory ever named a test).
func TestBuiltinDoctorOrdersTests(t *testing.T) {
	for _, c := range sampleCases(t) {
		env := start(t, c, sdSettings(), episode.BuiltinRoles(), nil)
		orders := 0
		for !env.Done() {
			d, err := actor.Builtin{}.Decide(context.Background(), env.View(nil, nil))
			require.NoError(t, err)
			ev := step(t, env, d.Output)
			for _, o := range sdbench.TurnOf(ev).Orders {
				if o.Price > 0 {
					orders++
				}
			}
		}
		require.Positive(t, orders, c.ID)
	}
}
