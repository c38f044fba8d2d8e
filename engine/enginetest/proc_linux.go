package enginetest

import "syscall"

// pdeathsig has the kernel kill a child server when the test process dies
// (a panic, a timeout, a SIGKILL), so no server outlives its test binary.
func pdeathsig() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
