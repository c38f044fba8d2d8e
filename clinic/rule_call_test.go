package clinic_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
)

func TestParseCallRule(t *testing.T) {
	d, ok := clinic.ParseRule("CALL order_imaging(modality=CT, region=abdomen) WHEN burning belly back: presentations like this needed it")
	require.True(t, ok)
	require.Equal(t, clinic.RuleDirective{Verb: clinic.VerbCall, Target: "order_imaging(modality=CT, region=abdomen)", When: "burning belly back"}, d)
}
