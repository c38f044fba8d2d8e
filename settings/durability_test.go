package settings_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/settings"
)

func TestDurability(t *testing.T) {
	def := settings.Default().Durability
	require.Equal(t, settings.Duration(24*time.Hour), def.MaxOutage)
	require.Equal(t, settings.Duration(time.Minute), def.MaxBackoff)
	require.Equal(t, def, settings.Durability{}.OrDefault(), "settings recorded before durability take the defaults")
	require.Equal(t, settings.Durability{MaxOutage: settings.Duration(time.Hour), MaxBackoff: def.MaxBackoff},
		settings.Durability{MaxOutage: settings.Duration(time.Hour)}.OrDefault())
	require.Equal(t, time.Second, def.InitialBackoff())
	require.Equal(t, 200*time.Millisecond, settings.Durability{MaxBackoff: settings.Duration(200 * time.Millisecond)}.InitialBackoff())
	for _, tc := range []struct {
		d    settings.Durability
		want string
	}{
		{settings.Durability{MaxOutage: 0, MaxBackoff: def.MaxBackoff}, "durability.max_outage must be a positive duration (e.g. 24h), got 0s"},
		{settings.Durability{MaxOutage: def.MaxOutage, MaxBackoff: settings.Duration(-time.Second)}, "durability.max_backoff must be a positive duration (e.g. 1m), got -1s"},
		{settings.Durability{MaxOutage: settings.Duration(time.Minute), MaxBackoff: settings.Duration(time.Hour)}, "durability.max_backoff (1h0m0s) must not exceed durability.max_outage (1m0s)"},
	} {
		s := settings.Default()
		s.Durability = tc.d
		require.EqualError(t, s.Validate(), tc.want)
	}
}
