package llm_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/medevoeval"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/settings"
)

// The run log names the templates the evolver role is asked with: the
// learning method's, or clinevo's evolver's.
func TestDescribeNamesTheMethodsTemplates(t *testing.T) {
	require.Equal(t, []string{"mem0_extract/1", "mem0_update/1"}, llm.MethodTemplates(settings.MethodMem0))
	require.Nil(t, llm.MethodTemplates(settings.MethodClinevo))
	s := settings.Default()
	s.Roles["evolver"] = settings.Role{Backend: settings.OpenAI, BaseURL: "http://127.0.0.1:1/v1", Model: "m"}
	s.Evolver.Method = settings.MethodACE
	require.Contains(t, llm.Describe(medevoeval.Benchmark{}, s)[6], "template ace_reflect/1,")
	s.Evolver.Method = settings.MethodClinevo
	require.Contains(t, llm.Describe(medevoeval.Benchmark{}, s)[6], "template evolver/1,")
}
