package experiments_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/experiments"
	"github.com/clinevo/clinevo/settings"
)

// TestWriteConditions: quick's table: a held-out condition's memory is
// frozen, a stream's its mode; the dependency is the carried or read run;
// the budgets are those its benchmark spells for the condition's settings
// (MedEvoEval's Tmax and Emax, the defaults 10 and 3, and quick's mdt: off);
// a benchmark the set lacks stops the table, naming the condition.
func TestWriteConditions(t *testing.T) {
	spec, err := experiments.Parse("quick.yaml", experiments.Quick, settings.Default(), defaultSet(t))
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, experiments.WriteConditions(&out, spec, defaultSet(t)))
	require.Regexp(t, `^experiment quick: 5 conditions, valid\nCONDITION +KIND +PROFILE +MEMORY +DEPENDS ON +BUDGETS +MODE +FEEDBACK +METHOD +B_P +B_M +K +CARDS +DOCTOR\n`, out.String())
	require.Regexp(t, `(?m)^E0 +stream +medevoeval +disabled +- +Tmax 10, Emax 3, MDT off +interactive +write_back +clinevo +0 +300 +5 +success,correction,rule +builtin$`, out.String())
	require.Regexp(t, `(?m)^E2 +stream +medevoeval +carry +E1 +Tmax 10, Emax 3, MDT off `, out.String())
	require.Regexp(t, `(?m)^H3 +heldout +medevoeval +frozen +E2 +Tmax 10, Emax 3, MDT off `, out.String())

	err = experiments.WriteConditions(&out, spec, bench.Set{})
	require.ErrorContains(t, err, "conditions[0] (E0): ")
}

// TestResolve: every condition with its resolved settings, under the keys
// `experiment validate --json` prints.
func TestResolve(t *testing.T) {
	spec, err := experiments.Parse("quick.yaml", experiments.Quick, settings.Default(), defaultSet(t))
	require.NoError(t, err)
	r, err := experiments.Resolve(spec)
	require.NoError(t, err)
	require.Len(t, r.Conditions, 5)
	require.Equal(t, "E2", r.Conditions[2].Name)
	require.Equal(t, 0, r.Conditions[2].Settings.Evolver.RuleBudget, "quick keeps no rule book")
	b, err := json.Marshal(r)
	require.NoError(t, err)
	var js map[string]any
	require.NoError(t, json.Unmarshal(b, &js))
	require.Equal(t, "quick", js["experiment"])
	require.Equal(t, true, js["valid"])
	cond := js["conditions"].([]any)[4].(map[string]any)
	require.Equal(t, "H3", cond["name"])
	require.Equal(t, "E2", cond["from"])
	require.Contains(t, cond, "settings")
}
