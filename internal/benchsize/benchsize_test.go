package benchsize

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPick(t *testing.T) {
	for _, c := range []struct {
		env  string
		want int
	}{{"", 500}, {"0", 500}, {"true", 500}, {"1", 5}} {
		t.Run("env="+c.env, func(t *testing.T) {
			t.Setenv(Env, c.env)
			require.Equal(t, c.want, Pick(500, 5))
			require.Equal(t, c.env == "1", Small())
		})
	}
}
