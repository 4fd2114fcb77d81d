"""The grader's options as traits: a command's argparse options made from the traits of the Configurable classes that
use them, the course's config files read under the command line, and each option's entry in docs/options.md.

An option is one trait, tagged ``config=True`` and with its ``help`` (the words --help and docs/options.md print),
on the class whose values it sets (autograder/cli.py: the commands' and Slurm's; bookkeeping/config.py: Settings and
Sandbox). More tags say how the command line spells it:

- ``flag``: "--jobs" (the attribute of argparse's namespace is argparse's own: jobs); a name without dashes is a
  positional argument; no flag: set in a config file only. A Bool is a switch: "--table" sets True; a Bool that is
  True by default is switched off by its "--no-..." flag (the namespace holds no_sandbox, the trait sandbox).
- ``metavar``, ``arg_type`` (argparse's type: Path), ``nargs``, ``required``: as argparse has them; an Enum's values
  are its choices; a List is given once per item (argparse's append) unless ``nargs`` says otherwise.

Where the command line leaves an option out, its value is the config file's (``c.AutograderGrade.jobs = 4`` in
autograder_config.py, bookkeeping/config.py's load_grader_config), else the trait's default.
"""
import argparse

from traitlets import Bool, Enum, Int, List, TraitType
from traitlets.config import Config


def own_traits(cls):
    """The options ``cls`` defines itself (not its bases'), in the order the class body has them."""
    return [(name, trait) for name, trait in vars(cls).items()
            if isinstance(trait, TraitType) and (trait.metadata.get("config") or "flag" in trait.metadata)]


def is_positional(trait):
    return not trait.metadata["flag"].startswith("-")


def inverted(trait):
    """A Bool that is True by default, switched off by its --no-... flag."""
    return isinstance(trait, Bool) and trait.metadata["flag"].startswith("--no-")


def argument(trait):
    """(name or flag, argparse's keyword arguments) of the option ``trait``."""
    tags = trait.metadata
    keywords = {"help": trait.help, "default": argparse.SUPPRESS}  # defaults are filled in by fill()
    if isinstance(trait, Bool):
        keywords["action"] = "store_true"
    elif isinstance(trait, List) and "nargs" not in tags:
        keywords["action"] = "append"
    if isinstance(trait, Int):
        keywords["type"] = int
    if isinstance(trait, Enum):
        keywords["choices"] = list(trait.values)
    for tag, keyword in (("arg_type", "type"), ("metavar", "metavar"), ("nargs", "nargs"), ("required", "required")):
        if tag in tags:
            keywords[keyword] = tags[tag]
    if is_positional(trait):
        del keywords["default"]  # a positional argument is always given
    return tags["flag"], keywords


def add_options(parser, classes):
    """The command-line options of ``classes`` on ``parser``: the first class's with argparse's own headings (the
    command's), each other's in a group titled by its docstring's first line; returns {(class, trait name):
    argparse's action}."""
    actions = {}
    for cls in classes:
        traits = [(name, trait) for name, trait in own_traits(cls) if "flag" in trait.metadata]
        if not traits:
            continue
        where = parser.add_argument_group(title(cls)) if cls is not classes[0] else parser
        for name, trait in traits:
            flag, keywords = argument(trait)
            actions[cls, name] = where.add_argument(flag, **keywords)
    return actions


def title(cls):
    return (cls.__doc__ or cls.__name__).strip().splitlines()[0].rstrip(".")


def configured(config: Config, cls, name):
    """The value ``config`` gives ``cls``'s option ``name`` (its own section or a base class's), else None."""
    for section in reversed(cls.section_names()):  # the class's own section wins over its bases'
        if section in config and name in config[section]:
            return config[section][name]
    return None


def as_argument(trait, value):
    """A trait's value as argparse would have put it in the namespace."""
    if inverted(trait):
        return not value
    convert = trait.metadata.get("arg_type")
    if convert is None or value is None:
        return value
    return [convert(item) for item in value] if isinstance(value, list) else convert(value)


def fill(args, actions, config: Config | None = None, take=lambda cls, name: True):
    """The options the command line left out, in ``args``: the config file's value where ``take(cls, name)``, else the
    trait's default (argparse's type applied, as to a default string). Returns {dest: (class, name)} of those taken
    from ``config``. A config value of the wrong type raises traitlets' TraitError, naming the option."""
    from_config, read = {}, {}
    for (cls, name), action in actions.items():
        if hasattr(args, action.dest):
            continue
        trait = cls.class_traits()[name]
        if (config is not None and trait.metadata.get("config") and take(cls, name)
                and configured(config, cls, name) is not None):
            if cls not in read:
                read[cls] = cls(config=config)  # traitlets checks every value of its sections here
            value = getattr(read[cls], name)
            from_config[action.dest] = (cls, name)
        else:
            value = trait.default()
        setattr(args, action.dest, as_argument(trait, value))
    return from_config


def shown_type(trait):
    if isinstance(trait, Enum):
        return "one of " + ", ".join(f"`{value}`" for value in trait.values)
    if isinstance(trait, List):
        return "list of " + ("paths" if "arg_type" in trait.metadata else "strings")
    if isinstance(trait, Bool):
        return "switch"
    if isinstance(trait, Int):
        return "integer"
    return "path" if "arg_type" in trait.metadata else "string"


def shown_default(trait, root):
    """The default as docs/options.md shows it (a path under the course's folder ``root``: relative to it)."""
    if trait.metadata.get("required") or (trait.metadata.get("flag") and is_positional(trait)):
        return "required"
    value = trait.default()
    if isinstance(trait, Bool):
        return "on" if value else "off"
    if value is None or value == []:
        return "none"
    if isinstance(value, str) and value.startswith(f"{root}/"):
        value = value[len(f"{root}/"):]
    return f"`{value}`"


def markdown(commands, root):
    """docs/options.md's text: for each (command, what it does, classes), each option's flag, help, config name, type
    and default, class by class as --help groups them (paths under ``root``, the course's folder, relative to it)."""
    lines = ["# The grader's options", "",
             ("Generated from the code by `python -m autograder.options_doc` (`make options-doc`): each option is a trait "
             "of the class named with its group, and this is its help; do not edit by hand (tests/autograder/test_options.py "
             "checks that it is up to date). Where the command line leaves an option out, its value is the one the "
             "course's `autograder_config.py` gives it (a traitlets config file beside `nbgrader_config.py`, e.g. "
             "`c.AutograderGrade.jobs = 4`), else the default below."), ""]
    for command, summary, classes in commands:
        lines += [f"## autograder {command}", "", summary, ""]
        for cls in classes:
            options = own_traits(cls)
            if not options:
                continue
            lines += [f"### {title(cls)} (`{cls.__name__}`)", ""]
            for name, trait in options:
                lines += [f"#### {shown_flag(cls, name, trait)}", "", trait.help, "",
                          f"- {where(cls, name, trait)}; type: {shown_type(trait)}; default: {shown_default(trait, root)}",
                          ""]
    return "\n".join(lines).rstrip() + "\n"


def where(cls, name, trait):
    return f"config: `c.{cls.__name__}.{name}`" if trait.metadata.get("config") else "command line only"


def shown_flag(cls, name, trait):
    """How docs/options.md heads an option: its flag and metavar, as --help shows them (no flag: its config name)."""
    flag = trait.metadata.get("flag")
    if flag is None:
        return f"`c.{cls.__name__}.{name}` (no flag: config file only)"
    if is_positional(trait):
        return f"`{trait.metadata.get('metavar', flag)}`"
    if isinstance(trait, Bool):
        return f"`{flag}`"
    metavar = trait.metadata.get("metavar", flag.lstrip("-").replace("-", "_").upper())  # argparse's, as --help has it
    return f"`{flag} {metavar}`"
