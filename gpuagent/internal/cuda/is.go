package cuda

import "github.com/vramplan/vramplan/gpuagent/backend"

// Is reports whether r means target, one of package backend's sentinel
// errors, so that a driver failure wrapped by a backend tests true for
// errors.Is(err, backend.ErrOutOfMemory) and the like.
func (r Result) Is(target error) bool {
	switch target {
	case backend.ErrOutOfMemory:
		return r == ErrOutOfMemory
	case backend.ErrInvalidValue:
		return r == ErrInvalidValue
	case backend.ErrNotSupported:
		return r == ErrNotSupported
	}
	return false
}
