package cli

// endedBySignal is an error that ended a run as the user asked: it is
// printed, and the exit status is 0 (iperf3 3.19+ on INT, TERM and HUP).
type endedBySignal struct{ error }
