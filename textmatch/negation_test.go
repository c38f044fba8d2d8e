package textmatch

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestClaims(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"no fever or chills, cough", []string{"cough", "no:chill", "no:fever"}},
		{"Denies chest pain but reports dyspnoea", []string{"dyspnoea", "no:chest", "no:pain", "report"}},
		{"fever with rigors", []string{"fever", "rigor"}},
		{"afebrile", []string{"no:fever"}},
		{"blood cultures negative", []string{"no:blood", "no:cultur"}},
		{"never-smoker", []string{"no:smoker"}},
		{"I don't drink", []string{"no:drink"}},
	} {
		t.Run(tc.in, func(t *testing.T) {
			require.Equal(t, tc.want, Sorted(Claims(tc.in)))
		})
	}
	require.True(t, Contradicts(Claims("no fever"), Claims("fever with rigors")))
	require.False(t, Contradicts(Claims("no fever"), Claims("no fever, then fever at night")))
	require.False(t, Contradicts(Claims("cough"), Claims("no fever")))
}
