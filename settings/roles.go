package settings

import (
	"slices"
	"sync"
)

// extraRoles are the roles the registered benchmarks add to RoleNames (a
// gatekeeper that holds the whole case): each is configured as roles.<name>
// like a shared role, and is built-in unless set to a model. bench.Register
// adds them; settings itself never names one.
var extraRoles struct {
	sync.RWMutex
	names []string
}

// AddRoles declares roles a benchmark adds; adding a name again is a no-op.
func AddRoles(names ...string) {
	extraRoles.Lock()
	defer extraRoles.Unlock()
	for _, n := range names {
		if !slices.Contains(RoleNames, n) && !slices.Contains(extraRoles.names, n) {
			extraRoles.names = append(extraRoles.names, n)
		}
	}
}

// KnownRoles are RoleNames followed by the roles benchmarks added, in the
// order they were added.
func KnownRoles() []string {
	extraRoles.RLock()
	defer extraRoles.RUnlock()
	return append(slices.Clone(RoleNames), extraRoles.names...)
}
