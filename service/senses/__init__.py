"""System-neutral sense mechanics: which of an observer's senses reach a target (pure).

``perceive`` measures, for one observer and one target: the distance (GEO-8, with
elevation), the light over the target's space (``service.lighting``), obscurement at the
target and around the observer, the exact lines available to sight (walls restricting
sight plus heavy-obscurement outlines, 5E-VIS-2), to physical senses (walls restricting
movement) and to hearing (walls restricting sound), and from those which senses locate the
target. Each ruleset (``service.rules``) turns that into its own answer.

Decisions (see also the rules modules):

- Sight needs the target's light to be bright or dim (5E-VIS-4: only the target's own
  light matters; darkness along the way does not block sight).
- Darkvision and devil's sight treat darkness within their range as dim light (5E-VIS-5/6);
  only devil's sight (and truesight) work in magical darkness.
- Truesight sees in any darkness and sees invisible creatures but not through heavy
  obscurement (5E-VIS-7). Blindsight ignores light and obscurement but needs a line free of
  walls that restrict movement (5E-VIS-8: not behind obstacles). X-ray vision needs no line
  within its range (5E-VIS-9) but still needs light or darkvision.
- Tremorsense reaches creatures on the ground within range (not those with the ``flying``
  condition or above elevation 0 while the observer is on the ground) whatever the walls.
- Hearing (imprecise) needs a line free of walls restricting sound, and an observer that is
  not ``deafened``; ``senses.hearing`` ``None`` is unlimited range, 0 no hearing (as
  every sense of range 0, even toward a creature in the same space).
- A target or observer whose space lies wholly in heavy obscurement cannot be seen by
  sight-based senses (5E-VIS-1).
- GEO-9, one vocabulary for every ruleset: a region's ``concealment: true`` flag is light
  obscurement. A target whose space is only **partly** inside heavy obscurement is lightly
  obscured (``obscurement_at``): the part outside is seen, as GEO-5a reads a region that
  covers only part of a line's band. ``concealed_by`` lists the concealing regions (light
  or heavy obscurement, or the flag) that the centre line crosses or that overlap the
  target's space, for the rulesets that conceal along the line (PV-DET-6).
- A target with ``invisible`` is not invisible to an observer that sees invisible within
  range (``see_invisibility``, truesight): ``visible_to_observer`` (PV-DET-9, 5E-VIS-7).
- Light over the target is the light that shines for this observer (``service.lighting``:
  a private carried light shines only for its carrier).
- GM option ``magical_darkness_blocks_sight`` (Foundry v12's behaviour; off by default, as
  5E-VIS-4 reads darkness): magical darkness between the spaces blocks sight, darkvision
  and x-ray vision through it when every sampled line (inset corners and centre of each
  space, 25 lines) crosses it; devil's sight and truesight see through it.

Modules
-------
``reach``: which senses locate a target, as columns, and a ruleset's ``SenseOrder``;
``obscurement``: obscurement from regions at a space and along a line; ``darkness``: the GM
option's magical darkness between two spaces; ``distances``: GEO-8 between the pairs'
spaces; ``lines``: the exact lines for sight, effect and sound; ``columns``: the one
measurement of every pair; ``reports``: ``perceive_all`` and ``locate_all`` over it.

References
----------
shared/RULES.md 5E-VIS-1..10, GEO-1, GEO-8; shared/API.md "Vision and detection".
"""

from service.senses.darkness import DARKNESS_BLOCKS, darkness_between, magical_darkness_area
from service.senses.distances import distance_units
from service.senses.obscurement import concealing_regions, obscurement_at, region_obscurement
from service.senses.reach import LIGHT_CODE, PRECISE, VISUAL, SenseOrder
from service.senses.reports import SenseReport, locate_all, perceive, perceive_all

__all__ = [
    "DARKNESS_BLOCKS",
    "LIGHT_CODE",
    "PRECISE",
    "VISUAL",
    "SenseOrder",
    "SenseReport",
    "concealing_regions",
    "darkness_between",
    "distance_units",
    "locate_all",
    "magical_darkness_area",
    "obscurement_at",
    "perceive",
    "perceive_all",
    "region_obscurement",
]
