package experiments_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/experiments"
	"github.com/clinevo/clinevo/settings"
)

// TestWriteConditions: quick's table: a held-out condition's memory is
// frozen, a stream's its mode; the dependency is the carried or read run;
// the budgets are what the caller spells; its error stops the table.
func TestWriteConditions(t *testing.T) {
	spec, err := experiments.Parse("quick.yaml", experiments.Quick, settings.Default(), defaultSet(t))
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, experiments.WriteConditions(&out, spec, func(i int, s settings.Settings) (string, error) {
		return fmt.Sprintf("b%d-%s", i, s.Benchmark), nil
	}))
	require.Regexp(t, `^experiment quick: 5 conditions, valid\nCONDITION +KIND +PROFILE +MEMORY +DEPENDS ON +BUDGETS +MODE +FEEDBACK +METHOD +B_P +B_M +K +CARDS +DOCTOR\n`, out.String())
	require.Regexp(t, `(?m)^E0 +stream +medevoeval +disabled +- +b0-medevoeval +interactive +write_back +clinevo +0 +300 +5 +success,correction,rule +builtin$`, out.String())
	require.Regexp(t, `(?m)^E2 +stream +medevoeval +carry +E1 +b2-medevoeval `, out.String())
	require.Regexp(t, `(?m)^H3 +heldout +medevoeval +frozen +E2 +b4-medevoeval `, out.String())

	err = experiments.WriteConditions(&out, spec, func(i int, _ settings.Settings) (string, error) {
		if i == 3 {
			return "", errors.New("no such benchmark")
		}
		return "", nil
	})
	require.EqualError(t, err, "no such benchmark")
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
