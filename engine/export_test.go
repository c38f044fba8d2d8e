package engine

// SteerWithin is Steer with a wait of the test's choosing.
var SteerWithin = steerWithin
