// Package crash holds the end-to-end tests that run clinevo as subprocesses
// and kill them with SIGKILL: a worker and the whole process in the middle of
// a stream, its evaluations and its replay (TestCrashRecovery), a worker in
// the middle of an episode's question (TestPatientDetailsSurviveSIGKILL), and
// three worker processes sharing one run (TestManyWorkersOneRun). They build
// the clinevo binary once and live in a package of their own, run beside the
// engine package's in-process tests.
package crash
