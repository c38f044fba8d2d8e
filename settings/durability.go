package settings

import (
	"fmt"
	"time"
)

// Durability is how a run waits out a failure of what it depends on (a model
// endpoint, the results store, the memory bank): a transient failure is
// retried, with a backoff that doubles from one second up to MaxBackoff, for
// as long as the dependency has been failing less than MaxOutage; then, or at
// once for a permanent failure, the run fails and `clinevo stream restart`
// continues it after the fix.
type Durability struct {
	// MaxOutage is the longest a dependency may keep failing before the run
	// gives up on it.
	MaxOutage Duration `json:"max_outage" mapstructure:"max_outage"`
	// MaxBackoff caps the wait between two attempts, and so bounds how long a
	// run idles after its dependency came back.
	MaxBackoff Duration `json:"max_backoff" mapstructure:"max_backoff"`
}

// DefaultDurability is clinevo's own choice (no paper gives one): a day of
// outage, which covers a provider incident, a database failover or a
// weekend's rate-limit storm, and a minute's backoff cap, which leaves a run
// idle at most a minute after its dependency returns.
func DefaultDurability() Durability {
	return Durability{MaxOutage: Duration(24 * time.Hour), MaxBackoff: Duration(time.Minute)}
}

// OrDefault fills the zero fields of d with the defaults: settings recorded
// before durability was a setting have none.
func (d Durability) OrDefault() Durability {
	def := DefaultDurability()
	if d.MaxOutage == 0 {
		d.MaxOutage = def.MaxOutage
	}
	if d.MaxBackoff == 0 {
		d.MaxBackoff = def.MaxBackoff
	}
	return d
}

// InitialBackoff is the wait after the first failure: a second, or
// MaxBackoff when that is shorter.
func (d Durability) InitialBackoff() time.Duration {
	return min(time.Second, time.Duration(d.MaxBackoff))
}

func (d Durability) validate() error {
	switch {
	case d.MaxOutage <= 0:
		return fmt.Errorf("durability.max_outage must be a positive duration (e.g. 24h), got %v", time.Duration(d.MaxOutage))
	case d.MaxBackoff <= 0:
		return fmt.Errorf("durability.max_backoff must be a positive duration (e.g. 1m), got %v", time.Duration(d.MaxBackoff))
	case d.MaxBackoff > d.MaxOutage:
		return fmt.Errorf("durability.max_backoff (%v) must not exceed durability.max_outage (%v)", time.Duration(d.MaxBackoff), time.Duration(d.MaxOutage))
	}
	return nil
}
