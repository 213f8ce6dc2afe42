package affinity

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Pin binds every thread of this process to cpu. Threads created later
// inherit the mask from their creator.
func Pin(cpu int) error {
	var set unix.CPUSet
	set.Set(cpu)
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return unix.SchedSetaffinity(0, &set)
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := unix.SchedSetaffinity(tid, &set); err != nil {
			return fmt.Errorf("pin to CPU %d: %w", cpu, err)
		}
	}
	return nil
}
