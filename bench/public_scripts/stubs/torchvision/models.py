"""resnet18 as torchvision builds it (BasicBlock, layers [2,2,2,2]), in $PORT_LIB's nn."""
from . import LIB
nn = LIB.nn

def _conv3x3(i, o, s=1): return nn.Conv2d(i, o, 3, stride=s, padding=1, bias=False)

class BasicBlock(nn.Module):
    expansion = 1
    def __init__(self, inp, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = _conv3x3(inp, planes, stride); self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = _conv3x3(planes, planes); self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample
    def forward(self, x):
        idt = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None: idt = self.downsample(x)
        out += idt
        return self.relu(out)

class ResNet(nn.Module):
    def __init__(self, layers=(2, 2, 2, 2), num_classes=1000):
        super().__init__()
        self.inplanes = 64
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64); self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        self.layer1 = self._make(64, layers[0]); self.layer2 = self._make(128, layers[1], 2)
        self.layer3 = self._make(256, layers[2], 2); self.layer4 = self._make(512, layers[3], 2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1); nn.init.constant_(m.bias, 0)
    def _make(self, planes, blocks, stride=1):
        ds = None
        if stride != 1 or self.inplanes != planes:
            ds = nn.Sequential(nn.Conv2d(self.inplanes, planes, 1, stride=stride, bias=False), nn.BatchNorm2d(planes))
        ls = [BasicBlock(self.inplanes, planes, stride, ds)]
        self.inplanes = planes
        ls += [BasicBlock(planes, planes) for _ in range(1, blocks)]
        return nn.Sequential(*ls)
    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(LIB.flatten(self.avgpool(x), 1))

def resnet18(weights=None, **kw): return ResNet((2, 2, 2, 2), **kw)
