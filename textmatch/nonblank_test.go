package textmatch

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNonBlank(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []string
		want []string
	}{
		{"nil", nil, nil},
		{"only blanks", []string{"", " ", "\t\n"}, nil},
		{"trimmed, order kept", []string{" angina ", "", "ecg\n", "  "}, []string{"angina", "ecg"}},
		{"inner space kept", []string{"chest  pain"}, []string{"chest  pain"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, NonBlank(c.in))
		})
	}
}
