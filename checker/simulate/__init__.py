"""Random walks and schedules: one walk and a batch's statistics (``walks``), the driver that
runs them in chunks (``simulation``), walks on the compiled core (``compiled``), shrinking a
violating walk (``shrink``) and hand-written scenarios (``scenario``)."""
