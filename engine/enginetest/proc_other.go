//go:build !linux

package enginetest

import "syscall"

// pdeathsig is Linux's; elsewhere a child server that loses its test process
// stops only when killed (the cleanup does it unless the test process dies).
func pdeathsig() *syscall.SysProcAttr { return nil }
