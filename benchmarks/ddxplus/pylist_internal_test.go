package ddxplus

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParsePyList(t *testing.T) {
	got, err := parsePyList(`['E_53', "it's", ['Pneumonia', 0.25], [], 'a\'b', ]`)
	require.NoError(t, err)
	require.Equal(t, []pyValue{
		{str: "E_53", isStr: true},
		{str: "it's", isStr: true},
		{isList: true, list: []pyValue{{str: "Pneumonia", isStr: true}, {num: 0.25, isNum: true}}},
		{isList: true},
		{str: "a'b", isStr: true},
	}, got)
	for _, c := range []struct{ in, want string }{
		{`'E_53'`, "want a list in brackets"},
		{`['E_53' 'E_54']`, "want , or ] at character 9"},
		{`['E_53`, "has no closing quote"},
		{`['E_53',`, "the list ends early"},
		{`[E_53]`, "want a quoted text, a number or a list at character 2"},
		{`['E_53'] x`, `unexpected "x" after the list at character 10`},
	} {
		_, err := parsePyList(c.in)
		require.ErrorContains(t, err, c.want, c.in)
	}
}
